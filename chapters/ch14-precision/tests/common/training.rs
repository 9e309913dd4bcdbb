//! Ex 14.4's check: the step under test at p ranks, step by step, next to one process that
//! computes the p ranks' slices one after the other and sums them in rank order (bf16 on
//! the wire: the f32 sum of the codes rounded once, with LibTorch's cast; f32: MPI may add
//! in another order, so the weights agree within 1e-5), and what a wrong step looks like.

use super::libtorch_codes;
use super::sums::emulated;
use ch06::data::Split;
use ch06::model::ModelKind;
use ch14::format::BF16;
use ch14::loss_scale::{LossScaler, Verdict};
use ch14::trainer::{slice, Setup, Step};
use ch14::weights::{Compute, Weights, Wire};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;
use trainer_kit::optim::{Optimizer, Rule};

/// The three cases of ex 14.4's check.
pub fn cases() -> [(Setup, bool); 3] {
    let setup = |compute, wire, steps, scaler| Setup {
        model: ModelKind::Mlp,
        compute,
        wire,
        batch: 48,
        steps,
        lr: 0.05,
        momentum: 0.9,
        seed: 14,
        scaler,
        device: tch::Device::Cpu,
    };
    [
        (setup(Compute::Bf16, Wire::Bf16, 4, None), false),
        (setup(Compute::F32, Wire::Bf16, 3, None), false),
        (
            setup(
                Compute::F16,
                Wire::F32,
                8,
                Some(LossScaler::new(2f32.powi(20), 2)),
            ),
            true,
        ),
    ]
}

/// How far the weights may be from one process's: f32 sums in another order.
const TOLERANCE: f64 = 1e-5;

/// A model's state in the check: weights, optimizer, scaler.
struct State {
    weights: Weights,
    opt: Optimizer,
    scaler: Option<LossScaler>,
}

impl State {
    fn new(data: &Split, setup: &Setup) -> State {
        let weights = Weights::new(
            setup.model,
            data.train.image_size(),
            setup.seed,
            setup.compute,
            setup.device,
        );
        let rule = Rule::Momentum {
            lr: setup.lr,
            momentum: setup.momentum,
        };
        let opt = Optimizer::new(rule, &weights.master);
        State {
            weights,
            opt,
            scaler: setup.scaler,
        }
    }
}

/// One process's step: every slice's gradient, the sum in rank order, GradScaler's rules.
fn one_process_step(data: &Split, setup: &Setup, p: usize, n: usize, s: &mut State) -> Verdict {
    let order: Vec<usize> = (0..data.train.len()).collect();
    let scale = s.scaler.map_or(1.0, |x| x.scale);
    let slices: Vec<Vec<f32>> = (0..p)
        .map(|r| {
            let (images, labels) = data.train.batch(&order[slice(n, r, p, setup.batch)]);
            s.weights.forward_backward(&images, &labels, scale);
            s.weights.local_gradient()
        })
        .collect();
    if let Some(x) = s.scaler.as_mut() {
        x.clean_steps += 1;
        if slices.iter().flatten().any(|g| !g.is_finite()) {
            (x.scale, x.clean_steps) = (x.scale / 2.0, 0);
            return Verdict::Skip;
        } else if x.clean_steps == x.growth_interval {
            (x.scale, x.clean_steps) = (x.scale * 2.0, 0);
        }
    }
    let sum: Vec<f32> = match setup.wire {
        Wire::Bf16 => {
            let codes: Vec<Vec<u16>> = slices.iter().map(|g| libtorch_codes(&BF16, g)).collect();
            emulated(&codes, &|_, k| k, true, false)
                .iter()
                .map(|&c| BF16.decode(c))
                .collect()
        }
        Wire::F32 => (0..slices[0].len())
            .map(|i| slices.iter().fold(0f32, |a, g| a + g[i]))
            .collect(),
    };
    let mean: Vec<f32> = sum.iter().map(|x| x / (p as f32 * scale)).collect();
    let grads = s.weights.shaped(&mean);
    s.opt.step(&mut s.weights.master, &grads);
    s.weights.refresh();
    Verdict::Step
}

fn flat(ts: &[Tensor]) -> Vec<f64> {
    let parts: Vec<Tensor> = ts
        .iter()
        .map(|t| t.to_kind(tch::Kind::Double).flatten(0, -1))
        .collect();
    Vec::<f64>::try_from(&Tensor::cat(&parts, 0)).expect("f64 values")
}

/// What the step under test did wrong at step `n`, from the weights before and after it.
fn cause(
    before: &[f64],
    got: &State,
    want: &State,
    p: usize,
    scale: f32,
    verdict: Verdict,
) -> String {
    let (g, w) = (flat(&got.weights.master), flat(&want.weights.master));
    let moved = g.iter().zip(before).any(|(a, b)| a != b);
    if verdict == Verdict::Skip {
        return if moved {
            "an inf in the f16 gradient must skip the step (update() said Skip), but the master \
             weights moved"
                .into()
        } else {
            "the step was skipped, but not as the reference's".into()
        };
    }
    if !moved {
        return "the f32 master weights did not move: step them with opt (weights.master); the \
                working weights are only their rounding, and an update in bf16 is lost"
            .into();
    }
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let dg: Vec<f64> = g.iter().zip(before).map(|(a, b)| a - b).collect();
    let dw: Vec<f64> = w.iter().zip(before).map(|(a, b)| a - b).collect();
    let ratio = dot(&dg, &dw) / dot(&dw, &dw);
    let near = |x: f64| (ratio / x - 1.0).abs() < 0.05;
    let kind = got.weights.compute.kind();
    let rounded: Vec<Tensor> = got.weights.master.iter().map(|m| m.to_kind(kind)).collect();
    if got.scaler != want.scaler {
        format!(
            "the loss scaler is {:?}, one process's {:?}: run ex 14.3's update() once a step, \
             with this rank's overflow flag",
            got.scaler, want.scaler
        )
    } else if flat(&got.weights.working) != flat(&rounded) {
        "the working weights are not the rounding of the master weights after the step: call \
         weights.refresh()"
            .into()
    } else if scale != 1.0 && near(f64::from(scale)) {
        format!("the update is {scale} times the reference's, the loss scale: divide the sum by ranks x scale")
    } else if want.scaler.is_some_and(|x| x.scale != scale) || near(0.5) || near(2.0) {
        format!(
            "the update is {ratio:.2} times the reference's at a step where update() changed \
             the scale: divide by the scale the gradient was made with ({scale}), read before \
             update() changes it"
        )
    } else if p > 1 && near(p as f64) {
        format!("the update is {p} times the reference's: divide the sum by the ranks (the mean over the global batch)")
    } else if near(1.0) {
        "the update is the reference's but for the last bits: divide the sum by ranks x scale \
         in f32 as x / (p * s) (a product with the reciprocal rounds differently)"
            .into()
    } else {
        format!("the update is {ratio:.3} times the reference's and points elsewhere: the sum over the ranks differs (bf16 on the wire: ex 14.1's codes summed by ex 14.2)")
    }
}

/// Ex 14.4's check: `steps` steps of `setup` on the first samples of `data` (in order) by
/// `step` at every rank, each compared with one process's; `need_skip`: the run must skip
/// a step and grow the scale (else the check would not test them).
pub fn check_step(
    world: &SimpleCommunicator,
    data: &Split,
    setup: &Setup,
    step: Step,
    need_skip: bool,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let order: Vec<usize> = (0..data.train.len()).collect();
    let (mut got, mut want) = (State::new(data, setup), State::new(data, setup));
    let (mut skipped, mut grew) = (0, false);
    for n in 0..setup.steps {
        let before = flat(&got.weights.master);
        let scale = got.scaler.map_or(1.0, |x| x.scale);
        let (images, labels) = data.train.batch(&order[slice(n, rank, p, setup.batch)]);
        got.weights.forward_backward(&images, &labels, scale);
        step(
            world,
            &mut got.weights,
            &mut got.opt,
            got.scaler.as_mut(),
            setup.wire,
        );
        let verdict = one_process_step(data, setup, p, n, &mut want);
        skipped += usize::from(verdict == Verdict::Skip);
        grew |= want.scaler.is_some_and(|x| x.scale > scale);
        let far = flat(&got.weights.master)
            .iter()
            .zip(&flat(&want.weights.master))
            .map(|(a, b)| (a - b).abs())
            .fold(0f64, f64::max);
        let (tolerance, allowed) = match setup.wire {
            Wire::Bf16 => (0.0, "equal bit for bit".to_string()),
            Wire::F32 => (TOLERANCE, format!("within {TOLERANCE:e}")),
        };
        if far > tolerance || got.scaler != want.scaler {
            return Err(format!(
                "{} compute, {} sum, {p} rank(s), step {n} (scale {scale}): the master weights are \
                 up to {far:.3e} from one process's (want {allowed}): {}",
                setup.compute.name(),
                setup.wire.name(),
                cause(&before, &got, &want, p, scale, verdict)
            ));
        }
    }
    if need_skip && (skipped == 0 || !grew) {
        return Err(format!(
            "the case skipped {skipped} step(s) and grew the scale: {grew}: it tests neither"
        ));
    }
    Ok(())
}
