//! Mistakes a learner makes in this chapter's schedules half, planted on purpose, and
//! what the checks say about them. No MPI: each test runs the exercise's own property
//! (or the given checker) against a wrong answer and pins the message a learner sees.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test planted_schedule_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch07-pipeline/tests/schedule_props/mod.rs"]
mod schedule_props;
use ch07::plan::{Action, Schedule};
use ch07::schedule_check::{check, UNIT};
use proptest::test_runner::{RngAlgorithm, TestRng};
use schedule_props::{every_case, gpipe_holds, one_f_one_b_holds, split_property};
use std::ops::Range;

// ANCHOR: warmup_from_the_wrong_end
/// Mistake 1 (ex 7.4): the warm-up counted from the wrong end: stage s runs s forwards
/// before its first backward (the last stage the most), where it should run p - s - 1.
fn one_f_one_b_wrong_warmup(p: usize, m: usize) -> Schedule {
    (0..p)
        .map(|s| {
            let warmup = s.min(m); // WRONG: min(p - s - 1, m)
            let mut ops: Vec<Action> = (0..warmup).map(Action::Forward).collect();
            for i in 0..m - warmup {
                ops.push(Action::Forward(warmup + i));
                ops.push(Action::Backward(i));
            }
            ops.extend((m - warmup..m).map(Action::Backward));
            ops
        })
        .collect()
}
// ANCHOR_END: warmup_from_the_wrong_end

#[test]
fn a_warm_up_from_the_wrong_end_deadlocks() {
    let why = check(&one_f_one_b_wrong_warmup(3, 4), 4, UNIT).unwrap_err();
    println!("the checker on one_f_one_b_wrong_warmup(3, 4):\n{why}\n");
    let want = "deadlock: stage 0 waits for the gradient of micro-batch 0 from stage 1, \
                stage 1 waits for the activation of micro-batch 1 from stage 0";
    assert!(why.contains(want), "{why}");
    let name = "1F1B runs, holds at most p - s activations on stage s, bubble (p-1)/(m+p-1)";
    let why = every_case(name, |p, m| {
        one_f_one_b_holds(one_f_one_b_wrong_warmup, p, m)
    })
    .unwrap_err();
    println!("what the test of ex 7.4 says:\n{why}\n");
    assert!(why.contains("first failing case: p = 2, m = 2"), "{why}");
    assert!(
        why.contains("deadlock: stage 0 waits for the gradient"),
        "{why}"
    );
}

// ANCHOR: reversed_by_hand
/// Mistake 2 (ex 7.3): the backwards reversed by hand, `m - mb` for `mb` in `0..m`: it
/// runs micro-batches m, m-1, ..., 1, one past the end, and never micro-batch 0.
fn gpipe_reversed_by_hand(p: usize, m: usize) -> Schedule {
    let mut stage: Vec<Action> = (0..m).map(Action::Forward).collect();
    stage.extend((0..m).map(|mb| Action::Backward(m - mb))); // WRONG: m - 1 - mb
    vec![stage; p]
}
// ANCHOR_END: reversed_by_hand

#[test]
fn a_gpipe_reversed_by_hand_runs_a_micro_batch_that_does_not_exist() {
    let name = "GPipe runs, holds m activations per stage, bubble (p-1)/(m+p-1)";
    let why = every_case(name, |p, m| gpipe_holds(gpipe_reversed_by_hand, p, m)).unwrap_err();
    println!("what the test of ex 7.3 says:\n{why}\n");
    let want = "stage 0 runs Backward(1), but the micro-batches are 0..=0";
    assert!(why.contains("first failing case: p = 1, m = 1"), "{why}");
    assert!(why.contains(want), "{why}");
}

// ANCHOR: greedy
/// Mistake 3 (ex 7.1): greedy: close a stage as soon as it reaches the average cost
/// (total / p). Fast and often right, but not always optimal.
fn greedy_split(costs: &[f64], p: usize) -> Result<Vec<Range<usize>>, String> {
    if p == 0 || p > costs.len() {
        return Err(format!("{p} stages for {} layers", costs.len()));
    }
    let target = costs.iter().sum::<f64>() / p as f64;
    let (mut ranges, mut start, mut sum) = (vec![], 0, 0.0);
    for (i, c) in costs.iter().enumerate() {
        sum += c;
        let left = costs.len() - i - 1; // layers after this one
        let stages_left = p - ranges.len() - 1; // stages after this one
        if stages_left > 0 && (sum >= target || left == stages_left) {
            ranges.push(start..i + 1);
            (start, sum) = (i + 1, 0.0);
        }
    }
    ranges.push(start..costs.len());
    Ok(ranges)
}
// ANCHOR_END: greedy

#[test]
fn a_greedy_split_is_not_always_optimal() {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let why = split_property(greedy_split, 300, Some(rng)).unwrap_err();
    println!("what the test of ex 7.1 says:\n{why}\n");
    assert!(why.contains("minimal failing case"), "{why}");
    assert!(why.contains("but a split with a slowest stage of"), "{why}");
}
