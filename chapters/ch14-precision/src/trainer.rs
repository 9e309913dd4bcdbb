//! Given: chapter 6's model trained data parallel in mixed precision on the shipped
//! digits: each rank's part of the global batch forward and backward in the compute
//! format ([`Weights`]), then the step (ex 14.4, or a planted mistake) with SGD and
//! momentum on the f32 master weights. The global batch is the same samples at every rank
//! count (rank r takes the r-th slice of each step's batch), so a run at p ranks and one
//! process doing the p slices one after the other see the same gradients. Nothing to run
//! here: the `mixed` lab and the tests use it.

use crate::loss_scale::{LossScaler, Verdict};
use crate::weights::{Compute, Weights, Wire};
use ch03::chunk_range;
use ch06::data::Split;
use ch06::model::ModelKind;
use ch06::shuffle::shuffled;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use std::time::Instant;
use tch::Device;
use trainer_kit::optim::{Optimizer, Rule};

/// The step between the backward pass and the next forward: ex 14.4's `step`, or a
/// planted mistake.
pub type Step =
    fn(&SimpleCommunicator, &mut Weights, &mut Optimizer, Option<&mut LossScaler>, Wire) -> Verdict;

/// One training run's settings (the same on every rank).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub model: ModelKind,
    pub compute: Compute,
    pub wire: Wire,
    /// Samples per step over all ranks (divisible by the ranks).
    pub batch: usize,
    /// Steps in all.
    pub steps: usize,
    pub lr: f64,
    pub momentum: f64,
    pub seed: u64,
    /// The loss scaler (f16's), or none (scale 1).
    pub scaler: Option<LossScaler>,
    /// Where both copies of the weights live and compute (this rank's).
    pub device: Device,
}

/// What a run measured, the same on every rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Each step's training loss: the mean over the ranks of their batch's mean loss.
    pub losses: Vec<f64>,
    /// Steps skipped for an overflow.
    pub skipped: usize,
    /// The scale after the last step (1 without a scaler).
    pub scale: f32,
    /// Test loss and accuracy (%) after the last step.
    pub test: (f64, f64),
    /// Bytes this rank hands to MPI per step for the gradient's sum.
    pub bytes_per_step: usize,
    /// Mean seconds per step (the slowest rank's).
    pub secs_per_step: f64,
    /// The model's number of weights (and of gradient values).
    pub values: usize,
}

/// Positions, within an epoch's shuffled order, of rank `rank`'s slice of step `step`'s
/// global batch of `batch` samples over `ranks` ranks.
pub fn slice(step: usize, rank: usize, ranks: usize, batch: usize) -> Range<usize> {
    let b = batch / ranks;
    step * batch + rank * b..step * batch + (rank + 1) * b
}

/// Bytes one rank sends to sum `n` values as a reduce-scatter and an allgather do (ex
/// 14.2's layout: every chunk but its own out, then its own chunk to the `p - 1` others;
/// MPI_Allreduce's ring algorithm sends as much): about 2 (p - 1) / p x n x the value's
/// bytes, 0 at one rank.
pub fn wire_bytes(n: usize, p: usize, rank: usize, wire: Wire) -> usize {
    let own = chunk_range(n, p, rank).len();
    (n - own + (p - 1) * own) * wire.bytes()
}

/// Trains `setup` on `data` at every rank of `world`, each step's update by `step`.
pub fn train(world: &SimpleCommunicator, data: &Split, setup: &Setup, step: Step) -> Report {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let image = data.train.image_size();
    let mut weights = Weights::new(setup.model, image, setup.seed, setup.compute, setup.device);
    let rule = Rule::Momentum {
        lr: setup.lr,
        momentum: setup.momentum,
    };
    let mut opt = Optimizer::new(rule, &weights.master);
    let mut scaler = setup.scaler;
    let per_epoch = data.train.len() / setup.batch;
    let (mut losses, mut skipped) = (vec![], 0);
    let mut order = (usize::MAX, vec![]);
    world.barrier();
    let start = Instant::now();
    for n in 0..setup.steps {
        let epoch = n / per_epoch;
        if order.0 != epoch {
            order = (epoch, shuffled(data.train.len(), setup.seed, epoch as u64));
        }
        let part = &order.1[slice(n % per_epoch, rank, p, setup.batch)];
        let (images, labels) = data.train.batch(part);
        let scale = scaler.map_or(1.0, |s| s.scale);
        let loss = weights.forward_backward(&images, &labels, scale);
        let mut sum = 0f64;
        world.all_reduce_into(&loss, &mut sum, SystemOperation::sum());
        losses.push(sum / p as f64);
        let verdict = step(world, &mut weights, &mut opt, scaler.as_mut(), setup.wire);
        skipped += usize::from(verdict == Verdict::Skip);
    }
    let mine = start.elapsed().as_secs_f64() / setup.steps.max(1) as f64;
    let mut slowest = 0f64;
    world.all_reduce_into(&mine, &mut slowest, SystemOperation::max());
    Report {
        losses,
        skipped,
        scale: scaler.map_or(1.0, |s| s.scale),
        test: weights.evaluate(&data.test.images, &data.test.labels),
        bytes_per_step: wire_bytes(weights.len(), p, rank, setup.wire),
        secs_per_step: slowest,
        values: weights.len(),
    }
}
