//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them, under mpirun at 4 ranks (`toolkit::mpi_test!`): leaders chosen differently
//! on different ranks (refused in one line by the node groups, before any data moves),
//! and the leaders' allreduce without its broadcast (named by the exercise's own check).
//!
//! Run: `cargo test -p ch12-communicating-less --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch12-communicating-less/tests/common/mod.rs"]
mod common;

use ch12::hier::allreduce_leaders;
use ch12::nodes::{NodeGroups, Nodes, Place};
use common::{check_allreduce, Case};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::elem::Elem;

// ANCHOR: odd_ranks_pick_the_last
/// Mistake 1: the leader picked from something that differs between the ranks of one
/// node: odd world ranks name their node's highest local rank, even ones local rank 0.
fn odd_ranks_pick_the_last(place: &Place) -> usize {
    match place.world_rank % 2 {
        1 => place.local_size - 1,
        _ => 0,
    }
}
// ANCHOR_END: odd_ranks_pick_the_last

// ANCHOR: no_broadcast
/// Mistake 2: the leaders' allreduce without the broadcast at the end: the leader holds
/// the total, every other rank keeps what it started with.
fn no_broadcast<T: Elem>(groups: &NodeGroups, xs: &[T]) -> Vec<T> {
    let leader = groups.node.process_at_rank(groups.leader as i32);
    let mut sum = xs.to_vec();
    if let Some(leaders) = &groups.leaders {
        leader.reduce_into_root(xs, &mut sum[..], SystemOperation::sum());
        let node_sum = sum.clone();
        leaders.all_reduce_into(&node_sum[..], &mut sum[..], SystemOperation::sum());
    } else {
        leader.reduce_into(xs, SystemOperation::sum());
    }
    sum // the mistake: no broadcast_into from the leader
}
// ANCHOR_END: no_broadcast

/// Rank `at`'s verdict must start with `says`; the other ranks' verdicts do not matter
/// (a leader of mistake 2 is right).
fn pinned(
    world: &SimpleCommunicator,
    at: i32,
    got: Result<(), String>,
    says: &str,
) -> Result<(), String> {
    match (world.rank() == at, got) {
        (true, Ok(())) => Err("the check passed a planted mistake".into()),
        (true, Err(e)) if !e.starts_with(says) => Err(format!("the message changed: {e}")),
        _ => Ok(()),
    }
}

const CASE: Case = Case {
    len: 5,
    nodes: 2,
    seed: 7,
};

toolkit::mpi_test! {
    fn leaders_named_differently_in_one_node_are_refused_in_one_line(world at &[4]) {
        let got = NodeGroups::with_leader(world, Nodes::Emulated(2), odd_ranks_pick_the_last);
        let says = "node 0: its ranks name different leaders (local rank 0 names 0, local rank \
                    1 names 1); every rank of a node must name the same one";
        match got {
            Ok(_) => Err("the groups were built with two leaders on one node".into()),
            Err(e) if e == says => Ok(()),
            Err(e) => Err(format!("the message changed: {e}")),
        }
    }

    fn an_allreduce_without_the_broadcast_is_named_on_a_non_leader(world at &[4]) {
        let got = check_allreduce(world, (no_broadcast, no_broadcast), &CASE, false);
        pinned(world, 1, got, "rank 1 of 4, len=5 nodes=Emulated(2) seed=7 (2 nodes (emulated) \
                               of 2, 2 ranks): i64 sums: element 0 is")
    }

    fn the_right_answers_pass_the_same_cases(world at &[4]) {
        NodeGroups::with_leader(world, Nodes::Emulated(2), |p| p.local_size - 1)?;
        check_allreduce(world, (allreduce_leaders, allreduce_leaders), &CASE, false)
    }
}
