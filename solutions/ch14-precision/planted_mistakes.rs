//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them: ex 14.1's rounding that cuts the bits off (toward zero), that sends a tie
//! away from zero, that flushes the subnormals to zero, and that saturates at the largest
//! value instead of giving infinity; ex 14.2's sum that rounds to bf16 after every
//! addition (the ring's way), and ex 14.3's scaler that decides on this rank's overflow
//! alone, under mpirun at 3 ranks (`toolkit::mpi_test!`); ex 14.4's step that updates the
//! bf16 working weights instead of the f32 master, that forgets to unscale, and that
//! unscales by the scale after `update()` changed it; ex 14.5's FP8 allgather that scales
//! by its own shard alone, that scales by the largest magnitude itself (not / 448), and
//! that forgets to multiply the decoded codes back by the scale.
//!
//! Run: `cargo test -p ch14-precision --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch14-precision/tests/common/mod.rs"]
mod common;

use ch14::encode::encode;
use ch14::format::{Format, BF16};
use ch14::loss_scale::{LossScaler, Verdict};
use ch14::scaler::update;
use ch14::trainer::Step;
use ch14::weights::Weights;
use common::scaler::check_agreement;
use common::sums::{check_sum, one_rounding, one_rounding_cause};
use common::training::{cases, check_step};
use common::{check_like_libtorch, Encode};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::planted::named;
use trainer_kit::optim::Optimizer;

/// Ex 14.1 as a learner might write it, with one rule of the rounding replaced.
fn encode_with(
    fmt: &Format,
    x: f32,
    n: impl Fn(f64) -> f64,
    subnormals: bool,
    saturate: bool,
) -> u16 {
    let sign = if x.is_sign_negative() {
        fmt.sign_bit()
    } else {
        0
    };
    if x.is_nan() {
        return sign | fmt.nan_code();
    }
    let a = f64::from(x.abs());
    let exponent = ((a.to_bits() >> 52) as i32) - 1023;
    if !subnormals && exponent < fmt.min_exponent() {
        return sign;
    }
    let e = exponent.max(fmt.min_exponent());
    let n = n(a / fmt.quantum(e));
    if x.is_infinite() || n * fmt.quantum(e) > f64::from(fmt.max()) {
        return match saturate {
            true => sign | (fmt.overflow_code(false) - 1),
            false => fmt.overflow_code(x.is_sign_negative()),
        };
    }
    let m = fmt.mantissa_bits;
    let (mut e, mut n) = (e, n as u32);
    if n == 1 << (m + 1) {
        (e, n) = (e + 1, 1 << m);
    }
    if exponent < fmt.min_exponent() {
        return sign | n as u16;
    }
    sign | (((e + fmt.bias()) as u16) << m) | (n - (1 << m)) as u16
}

// ANCHOR: toward_zero
/// Mistake 1: the bits below the mantissa cut off (`floor`): every value rounds toward
/// zero.
fn toward_zero(fmt: &Format, x: f32) -> u16 {
    encode_with(fmt, x, f64::floor, true, false)
}
// ANCHOR_END: toward_zero

// ANCHOR: ties_away
/// Mistake 2: `f64::round`, which sends a tie away from zero, not to the even mantissa.
fn ties_away(fmt: &Format, x: f32) -> u16 {
    encode_with(fmt, x, f64::round, true, false)
}
// ANCHOR_END: ties_away

// ANCHOR: flush_subnormals
/// Mistake 3: every value below the smallest normal becomes zero.
fn flush_subnormals(fmt: &Format, x: f32) -> u16 {
    encode_with(fmt, x, f64::round_ties_even, false, false)
}
// ANCHOR_END: flush_subnormals

// ANCHOR: saturate
/// Mistake 4: a value too large becomes the largest finite value (as some FP8 casts do
/// on request), not infinity.
fn saturate(fmt: &Format, x: f32) -> u16 {
    encode_with(fmt, x, f64::round_ties_even, true, true)
}
// ANCHOR_END: saturate

/// The check must fail `mistake` with a message that says `cause`.
fn says(mistake: Encode, cause: &str) {
    match check_like_libtorch(mistake, 1 << 12) {
        Ok(()) => panic!("the check passed a planted mistake ({cause})"),
        Err(why) => {
            println!("{why}");
            assert!(why.contains(cause), "the message changed: {why}");
        }
    }
}

#[test]
fn rounding_toward_zero_is_named() {
    says(toward_zero, "rounded toward zero");
}

#[test]
fn ties_away_from_zero_are_named() {
    says(ties_away, "a tie went to the odd mantissa");
}

#[test]
fn flushed_subnormals_are_named() {
    says(flush_subnormals, "a subnormal flushed to zero");
}

#[test]
fn saturation_is_named() {
    says(saturate, "saturated at the largest value");
}

#[test]
fn the_solution_passes_the_same_checks() {
    check_like_libtorch(encode, 1 << 12).expect("ex 14.1's solution");
}

// ANCHOR: rounded_every_addition
/// Mistake 5: ex 14.2 with the sum rounded to bf16 after every rank's value, as the ring
/// rounds it: the right bytes, the ring's error.
fn rounded_every_addition(world: &SimpleCommunicator, codes: &[u16]) -> Vec<u16> {
    let p = world.size() as usize;
    let mut all = vec![0u16; codes.len() * p];
    world.all_gather_into(codes, &mut all[..]);
    (0..codes.len())
        .map(|i| {
            (0..p).fold(0u16, |acc, r| {
                encode(
                    &BF16,
                    BF16.decode(acc) + BF16.decode(all[r * codes.len() + i]),
                )
            })
        })
        .collect()
}
// ANCHOR_END: rounded_every_addition

// ANCHOR: decides_alone
/// Mistake 6: ex 14.3 on this rank's flag alone: the right rules on a communicator of
/// one rank (`MPI_COMM_SELF`): a rank that overflowed halves its scale and skips, the
/// others step.
fn decides_alone(_world: &SimpleCommunicator, s: &mut LossScaler, overflow: bool) -> Verdict {
    update(&SimpleCommunicator::self_comm(), s, overflow)
}
// ANCHOR_END: decides_alone

toolkit::mpi_test! {
    fn a_scaler_that_decides_alone_is_named(world at &[3]) {
        match check_agreement(world, decides_alone) {
            Ok(()) => Err("the check passed a planted mistake".into()),
            Err(why) if why.contains("reduce the flag with MPI MAX") => {
                println!("{why}");
                Ok(())
            }
            Err(why) => Err(format!("the message changed: {why}")),
        }
    }

    fn a_sum_rounded_at_every_addition_is_named(world at &[3]) {
        match check_sum(world, rounded_every_addition, &one_rounding, &one_rounding_cause) {
            Ok(()) => Err("the check passed a planted mistake".into()),
            Err(why) if why.contains("rounded to bf16 after every addition") => {
                println!("{why}");
                Ok(())
            }
            Err(why) => Err(format!("the message changed: {why}")),
        }
    }
}

/// Ex 14.4's step with its sum (f32 on the wire) and its unscaling replaceable; `master`:
/// whether the optimizer steps the master weights (else the working copy, in bf16).
fn step_with(
    world: &SimpleCommunicator,
    weights: &mut Weights,
    opt: &mut Optimizer,
    scaler: Option<&mut LossScaler>,
    master: bool,
    unscale: impl Fn(f32, f32) -> f32,
) -> Verdict {
    use mpi::collective::SystemOperation;
    let mine = weights.local_gradient();
    let (before, after) = match scaler {
        Some(s) => {
            let before = s.scale;
            if update(world, s, mine.iter().any(|x| !x.is_finite())) == Verdict::Skip {
                return Verdict::Skip;
            }
            (before, s.scale)
        }
        None => (1.0, 1.0),
    };
    let mut sum = vec![0f32; mine.len()];
    world.all_reduce_into(&mine[..], &mut sum[..], SystemOperation::sum());
    let by = world.size() as f32 * unscale(before, after);
    let grads = weights.shaped(&sum.iter().map(|x| x / by).collect::<Vec<f32>>());
    if master {
        opt.step(&mut weights.master, &grads);
        weights.refresh();
    } else {
        opt.step(&mut weights.working, &grads);
    }
    Verdict::Step
}

// ANCHOR: step_mistakes
/// Mistake 7: ex 14.4 stepping the working weights (bf16, f16) instead of the f32 master.
const STEPS_WORKING: Step = |w, x, o, s, _| step_with(w, x, o, s, false, |before, _| before);

/// Mistake 8: ex 14.4 dividing the sum by the ranks only: the gradient keeps the scale.
const NOT_UNSCALED: Step = |w, x, o, s, _| step_with(w, x, o, s, true, |_, _| 1.0);

/// Mistake 9: ex 14.4 unscaling by `scaler.scale` read after `update()`, which doubled it
/// after the clean steps.
const SCALE_AFTER_UPDATE: Step = |w, x, o, s, _| step_with(w, x, o, s, true, |_, after| after);
// ANCHOR_END: step_mistakes

/// Ex 14.4's check on its f16 case must fail `mistake` with a message that says `cause`.
fn step_says(world: &SimpleCommunicator, mistake: Step, cause: &str) -> Result<(), String> {
    let data = ch06::data::digits()?;
    let (setup, need_skip) = cases()[2];
    named(check_step(world, &data, &setup, mistake, need_skip), cause)
}

toolkit::mpi_test! {
    fn ex14_4_mistakes_are_named(world at &[3]) {
        step_says(world, STEPS_WORKING, "master weights did not move")?;
        step_says(world, NOT_UNSCALED, "the loss scale: divide")?;
        step_says(world, SCALE_AFTER_UPDATE, "read before update()")
    }
}

// Ex 14.5's planted mistakes: their own file (this one stays readable).
#[path = "planted_fp8.rs"]
mod planted_fp8;
