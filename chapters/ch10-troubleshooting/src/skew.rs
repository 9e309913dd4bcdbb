//! Given code: arrival skew. A training-like loop (a fixed compute, then an allreduce of
//! the gradient, per step) whose arrivals at each allreduce are recorded by
//! `toolkit::arrivals` and gathered to rank 0 as `at[step][rank]`; and the score a
//! straggler detector keeps per rank (ex 10.4's answer, [`crate::straggler`]).
//!
//! Used by the `straggler` lab and the tests; nothing to run here.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};
use toolkit::arrivals::{self, ArrivalMatrix};

/// One rank's score over a run (ex 10.4's answer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankScore {
    /// The rank.
    pub rank: usize,
    /// Its mean lateness: over the collectives, its arrival minus the median arrival of
    /// that collective, in seconds (negative for a rank that is usually early).
    pub lateness: f64,
    /// In how many collectives it arrived last (a tie for last counts for each).
    pub last: usize,
}

/// What one run of [`train`] measured.
#[derive(Clone, Debug)]
pub struct Run {
    /// Every rank's arrival at every step's allreduce (rank 0 only; `None` elsewhere).
    pub arrivals: Option<ArrivalMatrix>,
    /// The median wall time of a step on this rank, in seconds (the median: a step that
    /// waited for a core, on a machine with fewer cores than ranks, does not move it).
    pub step: f64,
}

/// `steps` training-like steps on every rank of `world`: `compute` (a sleep: a rank's
/// forward and backward pass, which on a machine with fewer cores than ranks must not take
/// a core from the others), then an allreduce of `floats` gradient values. A
/// `WORKBOOK_STRAGGLER` rank waits its delay before each allreduce: its compute is slower.
/// The allreduce is started with `MPI_Iallreduce` and waited for with
/// `toolkit::idle::wait`: ranks blocked in `MPI_Allreduce` would spin (MPICH does) and
/// take the cores the straggler needs. Collective: every rank calls it.
// ANCHOR: train
pub fn train(world: &SimpleCommunicator, steps: usize, compute: Duration, floats: usize) -> Run {
    let grad = vec![1.0f32; floats];
    let mut sum = vec![0.0f32; floats];
    toolkit::idle::barrier(world);
    arrivals::start();
    let mut times = vec![];
    for _ in 0..steps {
        let start = Instant::now();
        std::thread::sleep(compute);
        mpi::request::scope(|scope| {
            let op = SystemOperation::sum();
            let request = world.immediate_all_reduce_into(scope, &grad[..], &mut sum[..], op);
            toolkit::idle::wait(request);
        });
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let step = times.get(steps / 2).copied().unwrap_or(0.0);
    let mine = arrivals::stop();
    Run {
        arrivals: arrivals::gather(world, &mine),
        step,
    }
}
// ANCHOR_END: train
