//! The flight recorder and the desync line, on a real job: one rank skips the broadcast
//! that the others call as their 17th collective, the classic `if rank != last { ... }`.
//! Every rank's watchdog prints its last collectives; the launcher compares them and names
//! where the ranks parted. And a rank that returned its error early, leaving the others in
//! a collective, says that error with the hang. Run: `cargo test -p toolkit --test
//! flight_recorder` (about 15 s).
//!
//! The `planted_*` functions are the faulty programs, `#[ignore]`d: only the test after
//! each starts it, under mpirun, through `launch_self`.

use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::time::Duration;
use toolkit::testing::run_body;
use toolkit::testing::{assert_failed_within, keep_for_the_book, launch_self, learner_view};

/// 16 allreduces of a loss, then a 4 MiB broadcast of the parameters that the last rank
/// skips, then more allreduces. 4 MiB is past every eager limit: the broadcast cannot
/// complete without the last rank.
#[test]
#[ignore = "planted fault: started by a_skipped_broadcast_is_named_as_a_desync"]
fn planted_skipped_broadcast() {
    run_body("planted_skipped_broadcast", |world| {
        let last = world.size() - 1;
        let mut params = vec![world.rank() as f32; 1 << 20];
        for step in 1..=20 {
            let (loss, mut sum) = (1.0f32, 0.0f32);
            world.all_reduce_into(&loss, &mut sum, SystemOperation::sum());
            if step == 16 && world.rank() != last {
                world.process_at_rank(0).broadcast_into(&mut params[..]);
            }
        }
        Ok(())
    });
}

#[test]
fn a_skipped_broadcast_is_named_as_a_desync() {
    let out = launch_self(
        "planted_skipped_broadcast",
        4,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(30));
    let view = learner_view(&out);
    for rank in 0..3 {
        let flight = format!("rank {rank}: flight on WORLD:");
        assert!(view.contains(&flight), "{flight}\n{view}\n{text}");
    }
    let desync = "desync: rank 3 called MPI_Allreduce(4 bytes) as the 17th collective on \
                  WORLD; ranks 0-2 called MPI_Bcast(root=0 4194304 bytes)";
    assert!(view.contains(desync), "{desync}\n{view}\n{text}");
    keep_for_the_book(
        "flight_recorder",
        "a_skipped_broadcast_is_named_as_a_desync",
        &view,
    );
}

/// Rank 1 returns an error while rank 0 waits in a barrier: it says its error with the hang.
#[test]
#[ignore = "planted fault: started by a_rank_that_failed_early_says_why_with_the_hang"]
fn planted_early_failure() {
    run_body("planted_early_failure", |world| {
        if world.rank() == 1 {
            return Err("sums differ".into());
        }
        world.barrier();
        Ok(())
    });
}

#[test]
fn a_rank_that_failed_early_says_why_with_the_hang() {
    let out = launch_self(
        "planted_early_failure",
        2,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(15));
    assert!(
        out.rank_lines(1)
            .join("\n")
            .contains("it had returned FAILED: sums differ"),
        "{text}"
    );
}
