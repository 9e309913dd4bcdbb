//! Given: the `local_sgd` lab's training loop: the least-squares problem of [`crate::lsq`]
//! trained by local SGD (ex 12.5's step), timed without any communication but the
//! averages, and the loss read at every average. Nothing to run here: the lab, the
//! benchmark and the tests use it.

use crate::averaging::Averaging;
use crate::local::step;
use crate::lsq::Problem;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};

/// The state of the job right after an average (or at the start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyncPoint {
    /// Steps taken.
    pub step: usize,
    /// Seconds since the start of the loop, the slowest rank's.
    pub secs: f64,
    /// The loss of the averaged parameters, over the whole job's rows.
    pub loss: f64,
}

/// What a local-SGD run measured.
#[derive(Clone, Debug)]
pub struct LocalRun {
    /// The start and every average, in order.
    pub points: Vec<SyncPoint>,
    /// The parameters at the end (the last average's if the run ends on one).
    pub weights: Vec<f32>,
    /// The bytes one rank contributed per step, counted (the averages' bytes / steps).
    pub bytes_per_step: usize,
    /// The averages taken.
    pub syncs: usize,
    /// The seconds per step, the slowest rank's.
    pub secs_per_step: f64,
}

impl LocalRun {
    /// The first point whose loss is at or below `target`, if any.
    pub fn reaches(&self, target: f64) -> Option<SyncPoint> {
        self.points.iter().find(|p| p.loss <= target).copied()
    }

    /// The loss at the last point.
    pub fn last_loss(&self) -> f64 {
        self.points.last().map_or(f64::NAN, |p| p.loss)
    }
}

/// `steps` local-SGD steps with learning rate `lr` from zero weights, averaging every
/// `every` steps; `every = 0` refused in one line before any communication. A rank's
/// local gradient is `p ×` its part of the job's gradient ([`Problem::loss_and_grad`]
/// divides by the job's rows), so that the mean over the ranks of the local gradients is
/// the job's gradient: at `every = 1` a step is the dense data-parallel step. The loop
/// communicates only in the averages; the losses at the averages are summed after it.
pub fn train_local(
    world: &SimpleCommunicator,
    p: &Problem,
    every: usize,
    steps: usize,
    lr: f32,
) -> Result<LocalRun, String> {
    train_local_slowed(world, p, every, steps, lr, None)
}

// ANCHOR: train_local
/// [`train_local`] with one rank's every step slower: `slow = Some((rank, delay))` makes
/// that rank sleep `delay` in each step's compute (a slow GPU, a busy node), unlike
/// `WORKBOOK_STRAGGLER`, which makes it late to each collective only.
pub fn train_local_slowed(
    world: &SimpleCommunicator,
    p: &Problem,
    every: usize,
    steps: usize,
    lr: f32,
    slow: Option<(usize, Duration)>,
) -> Result<LocalRun, String> {
    let mut avg = Averaging::new(every)?;
    let ranks = world.size() as f32;
    let mut w = vec![0f32; p.dim];
    let mut snapshots = vec![(0, 0.0, w.clone())];
    toolkit::idle::barrier(world);
    let start = Instant::now();
    for k in 1..=steps {
        let (_, grad) = p.loss_and_grad(&w);
        if let Some((_, delay)) = slow.filter(|&(r, _)| r == world.rank() as usize) {
            std::thread::sleep(delay);
        }
        let local: Vec<f32> = grad.iter().map(|g| g * ranks).collect();
        if step(world, &mut avg, &mut w, &local, lr) {
            snapshots.push((k, start.elapsed().as_secs_f64(), w.clone()));
        }
    }
    let mine = start.elapsed().as_secs_f64() / steps.max(1) as f64;
    let mut secs_per_step = 0f64;
    world.all_reduce_into(&mine, &mut secs_per_step, SystemOperation::max());
    let local_secs: Vec<f64> = snapshots.iter().map(|s| s.1).collect();
    let local_loss: Vec<f64> = snapshots.iter().map(|s| p.loss_and_grad(&s.2).0).collect();
    let (mut secs, mut loss) = (vec![0f64; local_secs.len()], vec![0f64; local_loss.len()]);
    world.all_reduce_into(&local_secs[..], &mut secs[..], SystemOperation::max());
    world.all_reduce_into(&local_loss[..], &mut loss[..], SystemOperation::sum());
    let points = (0..snapshots.len())
        .map(|i| SyncPoint {
            step: snapshots[i].0,
            secs: secs[i],
            loss: loss[i],
        })
        .collect();
    Ok(LocalRun {
        points,
        weights: w,
        bytes_per_step: avg.bytes_sent / steps.max(1),
        syncs: avg.syncs,
        secs_per_step,
    })
}
// ANCHOR_END: train_local
