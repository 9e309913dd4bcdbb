//! Checks of the given schedule checker (not an exercise): hand-written schedules whose
//! verdict is known.

use ch07::plan::Action::{Backward as B, Forward as F};
use ch07::schedule_check::{check, Costs, UNIT};

#[test]
fn the_naive_schedule_runs_one_micro_batch_at_a_time() {
    // p = 2, m = 2, each micro-batch through the whole pipeline before the next.
    let naive = vec![vec![F(0), B(0), F(1), B(1)], vec![F(0), B(0), F(1), B(1)]];
    let r = check(&naive, 2, UNIT).unwrap();
    assert_eq!(r.makespan, 8);
    assert_eq!(
        r.stages[0].starts,
        vec![(0, F(0)), (3, B(0)), (4, F(1)), (7, B(1))]
    );
    assert_eq!(
        r.stages[1].starts,
        vec![(1, F(0)), (2, B(0)), (5, F(1)), (6, B(1))]
    );
    assert_eq!(r.bubble(), 0.5);
    assert_eq!(r.stages[0].peak_in_flight, 1);
}

#[test]
fn costs_set_the_timing() {
    let one = vec![vec![F(0), B(0)]];
    let slow = Costs {
        forward: 2,
        backward: 5,
    };
    let r = check(&one, 1, slow).unwrap();
    assert_eq!((r.makespan, r.bubble()), (7, 0.0));
}

#[test]
fn a_cycle_of_waits_is_named() {
    // Stage 0 waits for B(0)'s gradient before sending F(1); stage 1 wants F(1) first.
    let bad = vec![vec![F(0), B(0), F(1), B(1)], vec![F(0), F(1), B(0), B(1)]];
    let why = check(&bad, 2, UNIT).unwrap_err();
    assert!(
        why.contains(
            "stage 0 waits for the gradient of micro-batch 0 from stage 1, stage 1 waits \
             for the activation of micro-batch 1 from stage 0"
        ),
        "{why}"
    );
}

#[test]
fn broken_lists_are_refused() {
    let cases = [
        (vec![vec![F(0)]], "never runs Backward(0)"),
        (vec![vec![B(0), F(0)]], "runs Backward(0) before Forward(0)"),
        (vec![vec![F(0), F(0), B(0)]], "runs Forward(0) twice"),
        (
            vec![vec![F(0), B(0), F(1), B(1)]],
            "micro-batches are 0..=0",
        ),
        (vec![], "no stage"),
    ];
    for (schedule, want) in cases {
        let why = check(&schedule, 1, UNIT).unwrap_err();
        assert!(why.contains(want), "{schedule:?}: {why}");
    }
}
