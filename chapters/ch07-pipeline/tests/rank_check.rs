//! Checks of the given plan checker (`ch07::rank_check`), without MPI: it refuses broken
//! task lists in one line, names the ranks stuck in a deadlock, and times a plan by the
//! costs it is given.
//!
//! Run: `cargo test -p ch07-pipeline --test main rank_check::`.

use ch07::plan::{Pass, Task};
use ch07::rank_check::{check_ranks, PassCosts};

fn t(stage: usize, mb: usize, pass: Pass) -> Task {
    Task { stage, mb, pass }
}

#[test]
fn broken_task_lists_are_refused() {
    use Pass::*;
    let cases = [
        // Stage 1 of 2 ranks x 1 chunk lives on rank 1, not rank 0.
        (vec![vec![t(1, 0, Forward)], vec![]], "rank 0 runs"),
        // A weight gradient before its input gradient.
        (
            vec![vec![
                t(0, 0, Forward),
                t(0, 0, WeightGrad),
                t(0, 0, InputGrad),
            ]],
            "after [Forward]",
        ),
        // A split backward left half done.
        (
            vec![vec![t(0, 0, Forward), t(0, 0, InputGrad)]],
            "runs only [Forward, InputGrad]",
        ),
    ];
    for (plan, says) in cases {
        match check_ranks(&plan, 1, 1, PassCosts::UNIT) {
            Ok(_) => panic!("{plan:?} was accepted"),
            Err(why) => assert!(
                why.contains(says),
                "{plan:?}: `{why}` does not say `{says}`"
            ),
        }
    }
}

#[test]
fn chunks_of_one_rank_waiting_for_each_other_deadlock() {
    use Pass::*;
    // One rank, two chunks (stages 0 and 1), the backwards in the forwards' order: stage 0's
    // backward waits for the gradient stage 1 would send only after it.
    let plan = vec![vec![
        t(0, 0, Forward),
        t(1, 0, Forward),
        t(0, 0, Backward),
        t(1, 0, Backward),
    ]];
    let why = check_ranks(&plan, 2, 1, PassCosts::UNIT).expect_err("a deadlock");
    assert!(
        why.starts_with("deadlock: rank 0 waits for the gradient of"),
        "{why}"
    );
    let fixed = vec![vec![
        t(0, 0, Forward),
        t(1, 0, Forward),
        t(1, 0, Backward),
        t(0, 0, Backward),
    ]];
    let report = check_ranks(&fixed, 2, 1, PassCosts::UNIT).expect("the fixed order runs");
    assert_eq!(report.makespan, 4);
    assert_eq!(report.ranks[0].peak_in_flight, 2);
}

#[test]
fn split_costs_set_the_timing() {
    use Pass::*;
    // Two ranks, one micro-batch, backward split: rank 1's input gradient (3 units) goes
    // back while it runs its weight gradient (5 units); rank 0's input gradient waits for it.
    let plan = vec![
        vec![t(0, 0, Forward), t(0, 0, InputGrad), t(0, 0, WeightGrad)],
        vec![t(1, 0, Forward), t(1, 0, InputGrad), t(1, 0, WeightGrad)],
    ];
    let costs = PassCosts {
        forward: 2,
        backward: 8,
        input_grad: 3,
        weight_grad: 5,
    };
    let report = check_ranks(&plan, 1, 1, costs).expect("runs");
    let starts: Vec<Vec<u64>> = report
        .ranks
        .iter()
        .map(|r| r.starts.iter().map(|s| s.0).collect())
        .collect();
    assert_eq!(starts, vec![vec![0, 7, 10], vec![2, 4, 7]]);
    assert_eq!(report.makespan, 15);
    assert_eq!(
        (report.ranks[0].peak_held, report.ranks[0].peak_in_flight),
        (1, 1)
    );
}
