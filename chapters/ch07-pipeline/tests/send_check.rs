//! Checks of the given checker for sends matched at the next receive (`send_check`, not
//! an exercise): GPipe and 1F1B cannot deadlock under that rule at p = 1..8, m = 1..16
//! (so an executor may complete each send with the next receive and stage one buffer per
//! stage), and a schedule that is correct under "sends never wait" but receives out of
//! order is named.
//!
//! Run: `cargo test -p ch07-pipeline --test main send_check::`.

use ch07::greedy;
use ch07::plan::Action::{Backward as B, Forward as F};
use ch07::plan::ScheduleKind;
use ch07::schedule_check::{check, UNIT};
use ch07::send_check::check_matched_sends;

#[test]
fn gpipe_and_1f1b_never_deadlock_with_sends_matched_at_the_next_receive() {
    for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
        for p in 1..=8 {
            for m in 1..=16 {
                let schedule = greedy::schedule(kind, p, m);
                check(&schedule, m, UNIT).unwrap();
                if let Err(why) = check_matched_sends(&schedule) {
                    panic!("{kind:?}, p = {p}, m = {m}: {why}");
                }
            }
        }
    }
}

#[test]
fn a_receive_out_of_order_deadlocks_once_sends_wait_to_be_matched() {
    // Stage 1 takes micro-batch 1 first: fine while sends never wait (both were posted),
    // but stage 0 cannot compute F(1) before stage 1 received F(0).
    let swapped = vec![vec![F(0), F(1), B(0), B(1)], vec![F(1), F(0), B(0), B(1)]];
    check(&swapped, 2, UNIT).unwrap();
    let why = check_matched_sends(&swapped).unwrap_err();
    assert_eq!(
        why,
        "deadlock with sends matched at the next receive: stage 0 waits for stage 1 to \
         receive what its Forward(0) sent; stage 1 waits to receive for Forward(1)"
    );
}
