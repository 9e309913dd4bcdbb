//! Given: data-parallel training in mixed precision on chapter 12's least-squares problem
//! (`ch12::lsq::Problem`: every job trains the same rows). f32 master weights and Adam's
//! state, sharded as ZeRO shards them: each rank computes its gradient in f32, multiplies
//! it by the loss scale and rounds it to f16 (ex 14.1: what a f16 backward pass would hand
//! over; small values flush to zero, large ones overflow to infinity); a reduce-scatter
//! sums the f16 values in f32 and leaves each rank its shard; each rank checks its shard
//! for an overflow, the scaler decides (ex 14.3), and on a step each rank unscales its
//! shard, steps its shard of the weights with Adam and the allgather hands the weights to
//! all. The model's gradients are tiny on purpose (the loss is multiplied by
//! `loss_factor`, as a deep network's small gradients are), so that f16 loses them unless
//! the loss is scaled. Nothing to run here: the `scaling` lab and the tests use it.

use crate::encode::encode;
use crate::format::F16;
use crate::loss_scale::{LossScaler, Verdict};
use ch12::lsq::Problem;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// How the gradients travel: in f32, or rounded to f16 with a loss scaler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    /// f32 gradients (the reference).
    F32,
    /// f16 gradients, scaled by the scaler's scale, the scaler updated every step.
    F16(LossScaler),
}

/// The scaler's decision: ex 14.3's `update`, or a planted mistake.
pub type Decide = fn(&SimpleCommunicator, &mut LossScaler, bool) -> Verdict;

/// What a training run measured, the same on every rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The loss (of the unscaled problem, `loss_factor` taken out) before each step and
    /// after the last.
    pub losses: Vec<f64>,
    /// The steps skipped for an overflow.
    pub skipped: usize,
    /// The scale at each step (1 for f32).
    pub scales: Vec<f32>,
    /// Of the gradients' nonzero elements, the share that rounded to zero in f16, over
    /// every rank and step.
    pub flushed: f64,
}

/// Adam's state for one shard (betas 0.9 and 0.999, eps 1e-8).
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    fn step(&mut self, w: &mut [f32], g: &[f32], lr: f32) {
        self.t += 1;
        let (c1, c2) = (1.0 - 0.9f32.powi(self.t), 1.0 - 0.999f32.powi(self.t));
        for i in 0..w.len() {
            self.m[i] = 0.9 * self.m[i] + 0.1 * g[i];
            self.v[i] = 0.999 * self.v[i] + 0.001 * g[i] * g[i];
            w[i] -= lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-8);
        }
    }
}

/// Ends the job on every rank, in one line, when the ranks did not all skip or all step
/// at `step`: a rank that skips alone would leave the allgather waiting for it.
fn agreed(world: &SimpleCommunicator, step: usize, skip: bool) {
    let (mut fewest, mut most) = (0u8, 0u8);
    world.all_reduce_into(&u8::from(skip), &mut fewest, SystemOperation::min());
    world.all_reduce_into(&u8::from(skip), &mut most, SystemOperation::max());
    if fewest != most {
        panic!(
            "step {step}: rank {} {} while another rank did not: the scaler's decision must be \
             the same on every rank (ex 14.3: reduce the overflow flag with MPI MAX first)",
            world.rank(),
            if skip { "skips" } else { "steps" }
        );
    }
}

/// `steps` steps of Adam with learning rate `lr` from zero weights on `problem` (this
/// rank's rows), the loss multiplied by `loss_factor`, its gradients in `precision`,
/// every decision of the scaler made by `decide`. The scale and `loss_factor` are both
/// divided out before Adam's step, so that its epsilon meets gradients of the problem's
/// own size.
pub fn train(
    world: &SimpleCommunicator,
    problem: &Problem,
    steps: usize,
    lr: f32,
    loss_factor: f32,
    precision: Precision,
    decide: Decide,
) -> Run {
    let p = world.size() as usize;
    let shard = problem.dim.div_ceil(p);
    let mine = world.rank() as usize * shard..(world.rank() as usize + 1) * shard;
    let mut w = vec![0f32; shard * p];
    let mut adam = Adam {
        m: vec![0.0; shard],
        v: vec![0.0; shard],
        t: 0,
    };
    let mut run = Run {
        losses: vec![],
        skipped: 0,
        scales: vec![],
        flushed: 0.0,
    };
    let (mut flushed, mut nonzero) = ([0u64; 1], [0u64; 1]);
    let mut scaler = match precision {
        Precision::F32 => None,
        Precision::F16(s) => Some(s),
    };
    for step in 0..=steps {
        let (loss, grad) = problem.loss_and_grad(&w[..problem.dim]);
        let mut total = 0f64;
        world.all_reduce_into(&loss, &mut total, SystemOperation::sum());
        run.losses.push(total);
        if step == steps {
            break;
        }
        let scale = scaler.map_or(1.0, |s| s.scale);
        run.scales.push(scale);
        let mut sent = vec![0f32; shard * p];
        for (s, g) in sent.iter_mut().zip(&grad) {
            let scaled = g * loss_factor * scale;
            *s = match scaler {
                None => scaled,
                Some(_) => {
                    let h = F16.decode(encode(&F16, scaled));
                    nonzero[0] += u64::from(scaled != 0.0);
                    flushed[0] += u64::from(scaled != 0.0 && h == 0.0);
                    h
                }
            };
        }
        let mut summed = vec![0f32; shard];
        world.reduce_scatter_block_into(&sent[..], &mut summed[..], SystemOperation::sum());
        if let Some(s) = scaler.as_mut() {
            let overflow = summed.iter().any(|x| !x.is_finite());
            let skip = decide(world, s, overflow) == Verdict::Skip;
            agreed(world, step, skip);
            if skip {
                run.skipped += 1;
                continue;
            }
        }
        let unscaled: Vec<f32> = summed.iter().map(|x| x / (scale * loss_factor)).collect();
        let mut part = w[mine.clone()].to_vec();
        adam.step(&mut part, &unscaled, lr);
        world.all_gather_into(&part[..], &mut w[..]);
    }
    let (mut all_flushed, mut all_nonzero) = ([0u64; 1], [0u64; 1]);
    world.all_reduce_into(&flushed[..], &mut all_flushed[..], SystemOperation::sum());
    world.all_reduce_into(&nonzero[..], &mut all_nonzero[..], SystemOperation::sum());
    run.flushed = all_flushed[0] as f64 / all_nonzero[0].max(1) as f64;
    run
}
