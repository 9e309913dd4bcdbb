//! Mistakes a learner makes in this chapter, planted on purpose, and what the checks say
//! about them. Each `planted_*` function runs the real exercise property against a wrong
//! implementation; it is `#[ignore]`d and started only by the test below it, under
//! mpirun, through `launch_self`. The assertions pin the message a learner will see.
//!
//! Run: `cargo test -p ch01-send-recv --features solution --test planted_mistakes -- --nocapture`
//! to read the messages.

#[path = "../../chapters/ch01-send-recv/tests/common/mod.rs"]
mod common;
use common::{halo_property, shift_property, token_property};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::strategy::Just;
use std::time::Duration;
use toolkit::launch::Outcome;
use toolkit::testing::{assert_failed_within, launch_self, run_body};

/// The watchdog's per-case limit in the deadlock tests, in seconds.
const LIMIT: &str = "3";

fn line_with<'a>(out: &'a Outcome, rank: u32, needle: &str) -> &'a str {
    let line = out
        .rank_lines(rank)
        .into_iter()
        .find(|l| l.contains(needle));
    line.unwrap_or_else(|| {
        panic!(
            "rank {rank} printed no line with {needle:?}:\n{}",
            out.text()
        )
    })
}

// ANCHOR: everyone_sends_first
/// Mistake 1: every rank sends first, then receives. Fine below the eager limit (the
/// message is buffered); beyond it each send waits for a receive that never starts.
fn everyone_sends_first(world: &SimpleCommunicator, mine: &[f64], theirs: &mut [f64]) {
    let (rank, size) = (world.rank(), world.size());
    let right = world.process_at_rank((rank + 1) % size);
    let left = world.process_at_rank((rank - 1 + size) % size);
    right.send_with_tag(mine, ch01::SHIFT_TAG);
    left.receive_into_with_tag(theirs, ch01::SHIFT_TAG);
}
// ANCHOR_END: everyone_sends_first

#[test]
#[ignore = "planted mistake: started by everyone_sending_first_deadlocks_and_is_named"]
fn planted_everyone_sends_first() {
    run_body("planted_everyone_sends_first", |world| {
        shift_property::<f64>(world, everyone_sends_first, Just(1 << 18))
    });
}

#[test]
fn everyone_sending_first_deadlocks_and_is_named() {
    let out = launch_self(
        "planted_everyone_sends_first",
        3,
        &[("WORKBOOK_CASE_TIMEOUT", LIMIT)],
    );
    let text = assert_failed_within(&out, Duration::from_secs(20));
    for rank in 0..3 {
        let line = line_with(&out, rank, "DEADLOCK?");
        let right = (rank + 1) % 3;
        let call = format!("blocked in MPI_Send(dest={right} tag=2 2097152 bytes)");
        assert!(line.contains(&call), "rank {rank}: {line}");
    }
    println!("{text}");
}

#[test]
#[ignore = "planted mistake: started by sending_first_to_yourself_deadlocks_at_one_rank"]
fn planted_everyone_sends_first_as_checked() {
    run_body("planted_everyone_sends_first_as_checked", |world| {
        shift_property::<f64>(world, everyone_sends_first, common::lengths())
    });
}

/// The check of ex 1.2 starts at 1 rank, and that is where "everyone sends first" fails
/// first: the right neighbour of rank 0 is rank 0, and a blocking send to yourself beyond
/// the eager limit waits for a receive that comes only after it. The lengths are the
/// check's own (`common::lengths`), so this is what a learner's first attempt meets.
#[test]
fn sending_first_to_yourself_deadlocks_at_one_rank() {
    let out = launch_self(
        "planted_everyone_sends_first_as_checked",
        1,
        &[("WORKBOOK_CASE_TIMEOUT", LIMIT)],
    );
    let text = assert_failed_within(&out, Duration::from_secs(20));
    let line = line_with(&out, 0, "DEADLOCK?");
    assert!(
        line.contains("blocked in MPI_Send(dest=0 tag=2 "),
        "rank 0 should wait in a send to itself: {line}"
    );
    println!("{text}");
}

/// Mistake 2: the data goes the wrong way round (to the left, from the right).
fn wrong_neighbour(world: &SimpleCommunicator, mine: &[i64], theirs: &mut [i64]) {
    let (rank, size) = (world.rank(), world.size());
    let right = world.process_at_rank((rank + 1) % size);
    let left = world.process_at_rank((rank - 1 + size) % size);
    mpi::request::scope(|scope| {
        let r = right.immediate_receive_into_with_tag(scope, theirs, ch01::SHIFT_TAG);
        left.immediate_send_with_tag(scope, mine, ch01::SHIFT_TAG)
            .wait();
        r.wait();
    });
}

#[test]
#[ignore = "planted mistake: started by a_wrong_neighbour_is_named"]
fn planted_wrong_neighbour() {
    run_body("planted_wrong_neighbour", |world| {
        shift_property::<i64>(world, wrong_neighbour, common::lengths())
    });
}

#[test]
fn a_wrong_neighbour_is_named() {
    let out = launch_self("planted_wrong_neighbour", 3, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(
        text.contains("minimal failing case: 1\n"),
        "not shrunk to 1 element:\n{text}"
    );
    let why = "rank 0 says: rank 0's `theirs`[0] holds rank 1's `mine`[0] but must hold rank 2's \
               `mine`[0] (1 of 1 elements wrong)";
    assert!(text.contains(why), "{text}");
    println!("{text}");
}

/// Mistake 3: both halo receives use the tag of the message's direction as seen by the
/// receiver ("from the left" = TO_LEFT_TAG), the opposite of what the sender used.
fn swapped_tags(w: &SimpleCommunicator, tl: &[f32], tr: &[f32], fl: &mut [f32], fr: &mut [f32]) {
    let (rank, size) = (w.rank(), w.size());
    let (l, r) = (
        w.process_at_rank((rank - 1 + size) % size),
        w.process_at_rank((rank + 1) % size),
    );
    mpi::request::scope(|s| {
        let rl = l.immediate_receive_into_with_tag(s, fl, ch01::TO_LEFT_TAG); // wrong tag
        let rr = r.immediate_receive_into_with_tag(s, fr, ch01::TO_RIGHT_TAG); // wrong tag
        let sl = l.immediate_send_with_tag(s, tl, ch01::TO_LEFT_TAG);
        let sr = r.immediate_send_with_tag(s, tr, ch01::TO_RIGHT_TAG);
        rl.wait();
        rr.wait();
        sl.wait();
        sr.wait();
    });
}

#[test]
#[ignore = "planted mistake: started by swapped_tags_are_named_or_hang_named"]
fn planted_swapped_tags() {
    run_body("planted_swapped_tags", |world| {
        halo_property::<f32>(world, swapped_tags)
    });
}

#[test]
fn swapped_tags_are_named_or_hang_named() {
    // At 2 ranks both neighbours are one rank: the tags match the wrong message.
    let out = launch_self("planted_swapped_tags", 2, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    let why = "rank 0's `from_left`[0] holds rank 1's `to_left`[0] but must hold rank 1's \
               `to_right`[0]";
    assert!(text.contains(why), "{text}");
    println!("{text}");
    // At 3 ranks no message carries the tag a receive waits for: it hangs, and is named.
    let out = launch_self(
        "planted_swapped_tags",
        3,
        &[("WORKBOOK_CASE_TIMEOUT", LIMIT)],
    );
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    for rank in 0..3 {
        let line = line_with(&out, rank, "DEADLOCK?");
        assert!(
            line.contains("blocked in MPI_Wait(one non-blocking request)"),
            "{line}"
        );
    }
    println!("{text}");
}

/// Mistake 4: the last rank thinks the lap ends with it and never sends back to rank 0.
fn open_ring(world: &SimpleCommunicator, token: &[i32]) -> (Vec<i32>, i32) {
    let (rank, size) = (world.rank(), world.size());
    let tag = ch01::TOKEN_TAG;
    if rank == 0 {
        world.process_at_rank(1 % size).send_with_tag(token, tag);
        let (back, status) = world.process_at_rank(size - 1).receive_vec_with_tag(tag);
        return (back, status.source_rank());
    }
    let (got, status) = world.process_at_rank(rank - 1).receive_vec_with_tag(tag);
    if rank + 1 < size {
        world.process_at_rank(rank + 1).send_with_tag(&got[..], tag);
    }
    (got, status.source_rank())
}

#[test]
#[ignore = "planted mistake: started by a_receive_without_a_send_is_named"]
fn planted_open_ring() {
    run_body("planted_open_ring", |world| {
        token_property::<i32>(world, open_ring)
    });
}

#[test]
fn a_receive_without_a_send_is_named() {
    let out = launch_self("planted_open_ring", 3, &[("WORKBOOK_CASE_TIMEOUT", LIMIT)]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    let line = line_with(&out, 0, "DEADLOCK?");
    assert!(
        line.contains("blocked in MPI_Mprobe(source=2 tag=1)"),
        "{line}"
    );
    for rank in 1..3 {
        let line = line_with(&out, rank, "DEADLOCK?");
        assert!(
            line.contains("finished the case and waits for the others"),
            "{line}"
        );
    }
    println!("{text}");
}
