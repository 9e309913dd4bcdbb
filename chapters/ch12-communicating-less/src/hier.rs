//! Chapter 12 exercise 12.1: the hierarchical allreduce through one leader per node:
//! reduce inside each node to its leader, allreduce among the leaders, broadcast inside
//! each node. Check with `make check CH=12`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::nodes::NodeGroups;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::elem::Elem;

// ANCHOR: allreduce_leaders
/// The element-wise sum of every rank's `xs`, returned on every rank, in three steps:
/// 1. reduce inside the node (`groups.node`) to the leader (local rank `groups.leader`);
/// 2. on the leaders only (`groups.leaders` is `Some`), allreduce the node sums;
/// 3. broadcast the total from the leader inside the node.
pub fn allreduce_leaders<T: Elem>(groups: &NodeGroups, xs: &[T]) -> Vec<T> {
    // TODO(ex 12.1): reduce_into_root / reduce_into on the node, all_reduce_into on the leaders, broadcast_into
    todo!("ex 12.1: reduce in the node, allreduce among the leaders, broadcast in the node")
}
// ANCHOR_END: allreduce_leaders
