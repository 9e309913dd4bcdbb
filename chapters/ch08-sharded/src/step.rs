//! Chapter 8 exercise 8.2: the ZeRO-1/2 step.
//!
//! Plain data parallelism allreduces the whole gradient and every rank runs Adam on every
//! parameter. A ZeRO rank reduce-scatters the gradient (it receives the sum of its shard
//! only), averages it, runs Adam on its shard only (its m and v are S long, not P), and
//! allgathers the updated shards, so that every rank holds all parameters again for the
//! next forward pass. Check with `make check CH=08` (tests/step.rs: N = 1..8 ranks against
//! one process's Adam, bit for bit).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::halves::Halves;
use crate::shards::{Layout, ShardAdam};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_scatter_sum
/// MPI_Reduce_scatter_block: `full` (N * S elements on every rank) summed over the ranks,
/// block `rank` of the sum (S elements) into `shard`.
pub fn reduce_scatter_sum(world: &SimpleCommunicator, full: &[f32], shard: &mut [f32]) {
    // TODO(ex 8.2): one call of rsmpi's reduce_scatter_block_into with a sum
    todo!("ex 8.2: reduce-scatter, average, Adam on the shard, allgather")
}
// ANCHOR_END: reduce_scatter_sum

// ANCHOR: allgather_shards
/// MPI_Allgather: every rank's `shard` (S elements) into `full` (N * S), rank r's at
/// elements `r*S .. (r+1)*S`.
pub fn allgather_shards(world: &SimpleCommunicator, shard: &[f32], full: &mut [f32]) {
    // TODO(ex 8.2): one call of rsmpi's all_gather_into
    todo!("ex 8.2: reduce-scatter, average, Adam on the shard, allgather")
}
// ANCHOR_END: allgather_shards

// ANCHOR: zero_step
/// One ZeRO-1/2 step of this rank. `grads`: this rank's own gradient, flat and padded (N *
/// S elements, zeros in the padding). `grad_shard` (S elements): receives the gradient of
/// this rank's shard averaged over the ranks. `params`: all parameters, flat and padded;
/// on return every rank holds the same updated values. `adam`: this rank's Adam, for
/// `layout.mine` only.
pub fn zero_step(
    halves: &dyn Halves,
    layout: &Layout,
    grads: &[f32],
    grad_shard: &mut [f32],
    params: &mut [f32],
    adam: &mut ShardAdam,
) {
    // TODO(ex 8.2): reduce-scatter into grad_shard, divide by N, Adam on params[mine], allgather
    todo!("ex 8.2: reduce-scatter, average, Adam on the shard, allgather")
}
// ANCHOR_END: zero_step
