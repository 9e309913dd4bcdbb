//! Ex 14.5's planted mistakes (a module of planted_mistakes.rs): the FP8 allgather that
//! scales by its own shard alone, that scales by the largest magnitude itself (not / 448),
//! and that forgets to multiply the decoded codes back by the scale, each through ex
//! 14.5's check at 3 ranks.

use super::common::fp8::{check_gather, Gather};
use ch14::encode::encode;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Ex 14.5 as a learner might write it: the scale from `(this shard's largest magnitude,
/// the tensor's)` by `scale`, and the decoded codes multiplied back by it or not.
fn gather_with(
    world: &SimpleCommunicator,
    shard: &[f32],
    whole: &mut [f32],
    scale: fn(f32, f32) -> f32,
    times_s: bool,
) -> f32 {
    use ch14::format::E4M3;
    use mpi::collective::SystemOperation;
    let mine = shard.iter().fold(0f32, |m, x| m.max(x.abs()));
    let mut amax = 0f32;
    world.all_reduce_into(&mine, &mut amax, SystemOperation::max());
    let s = scale(mine, amax);
    let codes: Vec<u8> = shard.iter().map(|&x| encode(&E4M3, x / s) as u8).collect();
    let mut all = vec![0u8; whole.len()];
    world.all_gather_into(&codes[..], &mut all[..]);
    for (w, &c) in whole.iter_mut().zip(&all) {
        *w = E4M3.decode(u16::from(c)) * if times_s { s } else { 1.0 };
    }
    s
}

// ANCHOR: gather_mistakes
/// Mistake 10: ex 14.5 with the scale of this rank's own shard (no MPI MAX).
const LOCAL_SCALE: Gather = |w, x, o| {
    gather_with(
        w,
        x,
        o,
        |mine, _| if mine > 0.0 { mine / 448.0 } else { 1.0 },
        true,
    )
};

/// Mistake 11: ex 14.5 with `s = amax`, not `amax / 448`.
const SCALE_IS_AMAX: Gather =
    |w, x, o| gather_with(w, x, o, |_, a| if a > 0.0 { a } else { 1.0 }, true);

/// Mistake 12: ex 14.5 that forgets to multiply the decoded codes back by `s`.
const NOT_TIMES_S: Gather =
    |w, x, o| gather_with(w, x, o, |_, a| if a > 0.0 { a / 448.0 } else { 1.0 }, false);
// ANCHOR_END: gather_mistakes

/// Ex 14.5's check must fail `mistake` with a message that says `cause`.
fn gather_says(world: &SimpleCommunicator, mistake: Gather, cause: &str) -> Result<(), String> {
    toolkit::planted::named(check_gather(world, mistake), cause)
}

toolkit::mpi_test! {
    fn ex14_5_mistakes_are_named(world at &[3]) {
        gather_says(world, LOCAL_SCALE, "Reduce the largest magnitude over the ranks")?;
        gather_says(world, SCALE_IS_AMAX, "Divide by E4M3.max()")?;
        gather_says(world, NOT_TIMES_S, "multiply each decoded code back by s")
    }
}
