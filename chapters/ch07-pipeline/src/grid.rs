//! Chapter 7 exercise 7.6: DP x PP, data parallelism over pipelines, on a 2D grid of
//! ranks.
//!
//! `dp` pipelines of `pp` stages: world rank `r` is stage `r % pp` of pipeline `r / pp`.
//! Two communicators: the pipeline (the `pp` ranks of one replica, rank = stage) that the
//! executor sends activations on, and the replicas (the `dp` ranks holding the same
//! stage, rank = replica) that average that stage's gradients, chapter 6's allreduce.
//! Check with `make check CH=07` (tests/grid.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

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
/// Cuts `world` into this rank's pipeline and replicas communicators (rank =
/// `replica * pp + stage`; each ordered as stated above). A world whose size is not `dp * pp` is refused
/// with `Err("a {dp} x {pp} grid needs {dp*pp} ranks, this job has {size}")`.
pub fn make_grid(world: &SimpleCommunicator, dp: usize, pp: usize) -> Result<Grid, String> {
    // TODO(ex 7.6): check the size, split_by_color_with_key twice
    todo!("ex 7.6: the pipeline and data-parallel communicators")
}
// ANCHOR_END: make_grid

// ANCHOR: allreduce_mean
/// Replaces each of `grads` by its mean over the ranks of `replicas` (sum with an
/// allreduce, divide by their number).
pub fn allreduce_mean(replicas: &SimpleCommunicator, grads: &mut [Tensor]) {
    // TODO(ex 7.6): pack, all_reduce_into (sum), divide, copy back into each gradient
    todo!("ex 7.6: average gradients inside the data-parallel group")
}
// ANCHOR_END: allreduce_mean
