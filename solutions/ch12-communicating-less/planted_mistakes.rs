//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them, under mpirun at 4 ranks (`toolkit::mpi_test!`): leaders chosen differently
//! on different ranks (refused in one line by the node groups, before any data moves),
//! and the leaders' allreduce without its broadcast (named by the exercise's own check);
//! ex 12.3's step that never adds its residual back, and one that sends values without
//! their indices (each rank assumes the others chose its own indices); ex 12.5's average
//! that sums without dividing, and a step that averages at the start of each period
//! instead of at its end; ex 12.4's sum that dequantises every rank's codes with this
//! rank's own scales.
//!
//! Run: `cargo test -p ch12-communicating-less --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch12-communicating-less/tests/common/mod.rs"]
mod common;

use ch12::averaging::Averaging;
use ch12::feedback::Feedback;
use ch12::hier::allreduce_leaders;
use ch12::nodes::{NodeGroups, Nodes, Place};
use ch12::topk::{sparse_sum, top_k};
use common::quant::check_quantized_sum;
use common::{check_allreduce, check_local, check_step, Case, LocalCase};
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

// ANCHOR: residual_dropped
/// Mistake 3: the residual kept but never added back: the step selects from the gradient
/// alone, and what was left out is overwritten at the next step.
fn residual_dropped(world: &SimpleCommunicator, fb: &mut Feedback, grad: &[f32]) -> Vec<f32> {
    let indices = top_k(grad, fb.keep); // the mistake: grad, not grad + fb.residual
    let values: Vec<f32> = indices.iter().map(|&i| grad[i as usize]).collect();
    let sum = sparse_sum(world, &indices, &values, grad.len());
    fb.residual = grad.to_vec();
    for &i in &indices {
        fb.residual[i as usize] = 0.0;
    }
    fb.bytes_sent += 4 + 8 * indices.len();
    sum
}
// ANCHOR_END: residual_dropped

// ANCHOR: values_without_indices
/// Mistake 4: only the values are gathered; each rank adds them at its own indices, as if
/// every rank had chosen the same ones.
fn values_without_indices(world: &SimpleCommunicator, fb: &mut Feedback, grad: &[f32]) -> Vec<f32> {
    let acc: Vec<f32> = grad.iter().zip(&fb.residual).map(|(g, r)| g + r).collect();
    let indices = top_k(&acc, fb.keep);
    let values: Vec<f32> = indices.iter().map(|&i| acc[i as usize]).collect();
    let mut all = vec![0f32; values.len() * world.size() as usize];
    world.all_gather_into(&values[..], &mut all[..]); // the mistake: no indices
    let mut sum = vec![0f32; grad.len()];
    for chunk in all.chunks(values.len().max(1)) {
        for (&i, &v) in indices.iter().zip(chunk) {
            sum[i as usize] += v;
        }
    }
    fb.residual = acc;
    for &i in &indices {
        fb.residual[i as usize] = 0.0;
    }
    fb.bytes_sent += 4 + 8 * indices.len();
    sum
}
// ANCHOR_END: values_without_indices

// ANCHOR: own_scales
/// Mistake 7: only the codes are gathered, and every rank's codes are dequantised with
/// this rank's own scales, as if the scales were the same everywhere.
fn own_scales(world: &SimpleCommunicator, scales: &[f32], codes: &[i8], bucket: usize) -> Vec<f32> {
    let mut all = vec![0i8; codes.len() * world.size() as usize];
    world.all_gather_into(codes, &mut all[..]); // the mistake: no scales
    let mut sum = vec![0f32; codes.len()];
    for theirs in all.chunks(codes.len().max(1)) {
        for (x, v) in sum
            .iter_mut()
            .zip(ch12::quant::dequantize(scales, theirs, bucket))
        {
            *x += v;
        }
    }
    sum
}
// ANCHOR_END: own_scales

// ANCHOR: sum_not_mean
/// Mistake 5: the average is the sum: the division by the number of ranks forgotten.
fn sum_not_mean(
    world: &SimpleCommunicator,
    avg: &mut Averaging,
    params: &mut [f32],
    grad: &[f32],
    lr: f32,
) -> bool {
    for (x, g) in params.iter_mut().zip(grad) {
        *x -= lr * g;
    }
    avg.since += 1;
    if avg.since < avg.every {
        return false;
    }
    let mine = params.to_vec();
    world.all_reduce_into(&mine[..], params, SystemOperation::sum()); // the mistake: no / p
    (avg.since, avg.syncs, avg.bytes_sent) = (0, avg.syncs + 1, avg.bytes_sent + 4 * mine.len());
    true
}
// ANCHOR_END: sum_not_mean

// ANCHOR: averages_first
/// Mistake 6: the period counted from 0: it averages when `since` is a multiple of H before
/// counting the step, so at steps 1, H + 1, 2H + 1... instead of H, 2H, 3H...
fn averages_first(
    world: &SimpleCommunicator,
    avg: &mut Averaging,
    params: &mut [f32],
    grad: &[f32],
    lr: f32,
) -> bool {
    for (x, g) in params.iter_mut().zip(grad) {
        *x -= lr * g;
    }
    let due = avg.since.is_multiple_of(avg.every); // the mistake: before counting this step
    avg.since = (avg.since + 1) % avg.every;
    if due {
        ch12::local::average(world, params);
        (avg.syncs, avg.bytes_sent) = (avg.syncs + 1, avg.bytes_sent + 4 * params.len());
    }
    due
}
// ANCHOR_END: averages_first

const LOCAL: LocalCase = LocalCase {
    every: 3,
    steps: 6,
    dim: 5,
    seed: 7,
};

const TOPK: Case = Case {
    len: 8,
    nodes: 0,
    seed: 7,
};

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
                               of 2 ranks each): i64 sums: element 0 is")
    }

    fn the_right_answers_pass_the_same_cases(world at &[4]) {
        NodeGroups::with_leader(world, Nodes::Emulated(2), |p| p.local_size - 1)?;
        check_allreduce(world, (allreduce_leaders, allreduce_leaders), &CASE, false)
    }

    fn a_step_without_the_residual_is_named_by_its_residual(world at &[4]) {
        let got = check_step(world, residual_dropped, &TOPK, 25.0);
        pinned(world, 0, got, "rank 0 of 4, len=8 top-k 25% seed=7: residual (gradient + old \
                               residual, minus what was sent): element")
    }

    fn values_without_their_indices_are_named_by_the_result(world at &[4]) {
        let got = check_step(world, values_without_indices, &TOPK, 25.0);
        pinned(world, 0, got, "rank 0 of 4, len=8 top-k 25% seed=7: result (the sum of every \
                               rank's sent pieces): element")
    }

    fn the_right_step_passes_the_same_case(world at &[4]) {
        check_step(world, ch12::topk::step, &TOPK, 25.0)
    }

    fn an_average_without_the_division_is_named_by_the_mean(world at &[4]) {
        let got = check_local(world, sum_not_mean, &LOCAL);
        pinned(world, 0, got, "rank 0 of 4, H=3 dim=5 seed=7: step 3: the average (the mean of \
                               the ranks' parameters): element 0 is")
    }

    fn averaging_at_the_start_of_a_period_is_named_by_its_step(world at &[4]) {
        let got = check_local(world, averages_first, &LOCAL);
        pinned(world, 0, got, "rank 0 of 4, H=3 dim=5 seed=7: step 1: averaged = true, but H = 3 \
                               averages after steps 3, 6, 9... only")
    }

    fn the_right_local_step_passes_the_same_case(world at &[4]) {
        check_local(world, ch12::local::step, &LOCAL)
    }

    fn codes_added_with_this_ranks_scales_are_named_by_the_sum(world at &[4]) {
        let got = check_quantized_sum(world, own_scales, 32, 8, 1);
        pinned(world, 0, got, "rank 0 of 4, len=32 bucket=8 seed=1: the sum of every rank's \
                               codes, each dequantised with its own scales: element 0 is")
    }

    fn the_right_quantized_sum_passes_the_same_case(world at &[4]) {
        check_quantized_sum(world, ch12::quant::quantized_sum, 32, 8, 1)
    }
}
