//! Chapter 12 exercise 12.2: the hierarchical allreduce that keeps every rank busy:
//! reduce-scatter inside the node, allreduce of each shard across the nodes among the
//! ranks with the same local rank, allgather inside the node. Check with
//! `make check CH=12`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::nodes::NodeGroups;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::elem::Elem;

// ANCHOR: allreduce_busy
/// The element-wise sum of every rank's `xs`, returned on every rank. Needs nodes of
/// equal size (`groups.uniform()`): with `q` ranks per node,
/// 1. pad `xs` with zeros to a multiple of `q` and reduce-scatter it inside the node
///    (`groups.node`): local rank `i` gets shard `i` summed over its node;
/// 2. allreduce that shard among the peers (`groups.peers`: local rank `i` of every node);
/// 3. allgather the shards inside the node and drop the padding.
pub fn allreduce_busy<T: Elem>(groups: &NodeGroups, xs: &[T]) -> Vec<T> {
    // TODO(ex 12.2): pad, reduce_scatter_block_into on the node, all_reduce_into on the peers, all_gather_into, truncate
    todo!("ex 12.2: reduce-scatter in the node, allreduce the shard across nodes, allgather")
}
// ANCHOR_END: allreduce_busy
