//! Chapter 7 exercise 7.6: DP x PP on a 2D grid of ranks (solution).

use crate::wire;
use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use tch::Tensor;

/// This rank's place on the grid of `dp` pipelines of `pp` stages, and its two
/// communicators.
pub struct Grid {
    pub dp: usize,
    pub pp: usize,
    /// Which pipeline (data-parallel replica) this rank is in: `world rank / pp`.
    pub replica: usize,
    /// Which stage of it: `world rank % pp`.
    pub stage: usize,
    /// The ranks of this pipeline; rank here = stage.
    pub pipeline: SimpleCommunicator,
    /// The ranks holding this same stage, one per pipeline; rank here = replica.
    pub replicas: SimpleCommunicator,
}

// ANCHOR: make_grid
/// Cuts `world` (size `dp * pp`, rank = replica * pp + stage) into both communicators.
pub fn make_grid(world: &SimpleCommunicator, dp: usize, pp: usize) -> Result<Grid, String> {
    let size = world.size() as usize;
    if dp == 0 || pp == 0 || dp * pp != size {
        return Err(format!(
            "a {dp} x {pp} grid needs {} ranks, this job has {size}",
            dp * pp
        ));
    }
    let rank = world.rank() as usize;
    let (replica, stage) = (rank / pp, rank % pp);
    let split = |color: usize, key: usize| {
        world
            .split_by_color_with_key(Color::with_value(color as i32), key as i32)
            .expect("every rank gives a color")
    };
    let pipeline = split(replica, stage);
    let replicas = split(stage, replica);
    Ok(Grid {
        dp,
        pp,
        replica,
        stage,
        pipeline,
        replicas,
    })
}
// ANCHOR_END: make_grid

// ANCHOR: allreduce_mean
/// Averages `grads` over the ranks of `replicas` (one allreduce of all of them packed).
pub fn allreduce_mean(replicas: &SimpleCommunicator, grads: &mut [Tensor]) {
    let n = replicas.size();
    if n == 1 {
        return;
    }
    let mut mine = Vec::new();
    let mut part = Vec::<f64>::new();
    for g in grads.iter() {
        wire::copy_out(g, &mut part);
        mine.extend_from_slice(&part);
    }
    let mut sum = vec![0f64; mine.len()];
    replicas.all_reduce_into(&mine[..], &mut sum[..], SystemOperation::sum());
    let mut at = 0;
    for g in grads.iter_mut() {
        let k = g.numel();
        let mean: Vec<f64> = sum[at..at + k].iter().map(|x| x / f64::from(n)).collect();
        let values = wire::copy_in(&mean, &g.size(), g.device());
        tch::no_grad(|| g.copy_(&values));
        at += k;
    }
}
// ANCHOR_END: allreduce_mean
