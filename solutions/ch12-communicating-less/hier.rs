//! Chapter 12 exercise 12.1: solution.

use crate::nodes::NodeGroups;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::elem::Elem;

// ANCHOR: allreduce_leaders
/// Reduce to the leader, allreduce among the leaders, broadcast from the leader.
pub fn allreduce_leaders<T: Elem>(groups: &NodeGroups, xs: &[T]) -> Vec<T> {
    let leader = groups.node.process_at_rank(groups.leader as i32);
    let mut sum = xs.to_vec();
    if let Some(leaders) = &groups.leaders {
        leader.reduce_into_root(xs, &mut sum[..], SystemOperation::sum());
        let node_sum = sum.clone();
        leaders.all_reduce_into(&node_sum[..], &mut sum[..], SystemOperation::sum());
    } else {
        leader.reduce_into(xs, SystemOperation::sum());
    }
    leader.broadcast_into(&mut sum[..]);
    sum
}
// ANCHOR_END: allreduce_leaders
