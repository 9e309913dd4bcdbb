//! Chapter 8 exercise 8.2: the ZeRO-1/2 step (solution).

use crate::halves::Halves;
use crate::shards::{Layout, ShardAdam};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_scatter_sum
/// MPI_Reduce_scatter_block with a sum: block `rank` of the sum into `shard`.
pub fn reduce_scatter_sum(world: &SimpleCommunicator, full: &[f32], shard: &mut [f32]) {
    world.reduce_scatter_block_into(full, shard, SystemOperation::sum());
}
// ANCHOR_END: reduce_scatter_sum

// ANCHOR: allgather_shards
/// MPI_Allgather: every rank's `shard` into `full`, rank r's at block r.
pub fn allgather_shards(world: &SimpleCommunicator, shard: &[f32], full: &mut [f32]) {
    world.all_gather_into(shard, full);
}
// ANCHOR_END: allgather_shards

// ANCHOR: zero_step
/// One ZeRO-1/2 step: reduce-scatter, average, Adam on the shard, allgather.
pub fn zero_step(
    halves: &dyn Halves,
    layout: &Layout,
    grads: &[f32],
    grad_shard: &mut [f32],
    params: &mut [f32],
    adam: &mut ShardAdam,
) {
    // communication: my shard of the summed gradient
    halves.sum_scatter(grads, grad_shard);
    let ranks = halves.ranks() as f32;
    grad_shard.iter_mut().for_each(|g| *g /= ranks);
    adam.step(&mut params[layout.mine.clone()], grad_shard);
    // communication: every rank's updated shard, into the whole flat buffer. rsmpi lends
    // no in-place allgather: my shard goes out of a copy.
    let mine = params[layout.mine.clone()].to_vec();
    halves.gather_all(&mine, params);
}
// ANCHOR_END: zero_step
