//! Chapter 12 exercise 12.2: solution.

use crate::nodes::NodeGroups;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::elem::Elem;

// ANCHOR: allreduce_busy
/// Reduce-scatter in the node, allreduce the shard among the peers, allgather.
pub fn allreduce_busy<T: Elem>(groups: &NodeGroups, xs: &[T]) -> Vec<T> {
    let q = groups.place.local_size;
    let shard = xs.len().div_ceil(q);
    let mut padded = xs.to_vec();
    padded.resize(shard * q, T::default());
    let mut mine = vec![T::default(); shard];
    let node = &groups.node;
    node.reduce_scatter_block_into(&padded[..], &mut mine[..], SystemOperation::sum());
    let mut total = vec![T::default(); shard];
    groups
        .peers
        .all_reduce_into(&mine[..], &mut total[..], SystemOperation::sum());
    node.all_gather_into(&total[..], &mut padded[..]);
    padded.truncate(xs.len());
    padded
}
// ANCHOR_END: allreduce_busy
