//! The harness checks itself: each test plants a fault and asserts that the harness
//! reports it as it promises (named, quickly, with the rank and the call).
//!
//! Errors, panics inside cases and hangs of several threads: tests/failure_reports.rs.
//!
//! The `planted_*` functions are the faulty programs. They are `#[ignore]`d: only the
//! test above each starts them, under mpirun, through `launch_self`.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use std::time::Duration;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, at_ranks, keep_for_the_book, launch_self};
use toolkit::testing::{learner_view, run_body, verdict};

/// Allreduce (sum) by recursive doubling: exchange with `rank ^ mask`, for mask = 1, 2, 4...
/// With `skip_missing_partner` it has the classic bug: partners past the last rank are
/// skipped, which is only right when the rank count is a power of two.
fn recursive_doubling(
    world: &SimpleCommunicator,
    xs: &[i64],
    skip_missing_partner: bool,
) -> Vec<i64> {
    let (rank, size) = (world.rank(), world.size());
    if !skip_missing_partner {
        let mut sum = vec![0; xs.len()];
        world.all_reduce_into(xs, &mut sum[..], SystemOperation::sum());
        return sum;
    }
    let mut acc = xs.to_vec();
    let mut mask = 1;
    while mask < size {
        let partner = rank ^ mask;
        if partner < size {
            let mut theirs = vec![0i64; acc.len()];
            let p = world.process_at_rank(partner);
            mpi::point_to_point::send_receive_into(&acc[..], &p, &mut theirs[..], &p);
            acc.iter_mut().zip(&theirs).for_each(|(a, t)| *a += t);
        }
        mask <<= 1;
    }
    acc
}

/// Property: the allreduce equals the sum computed from what every rank contributed.
fn sum_property(world: &SimpleCommunicator, buggy: bool) -> Result<(), String> {
    let (rank, size) = (world.rank() as i64, world.size() as i64);
    property(world, "recursive-doubling sum equals the true sum")
        .cases(64)
        .check(prop::collection::vec(-1000i64..1000, 0..64), |xs| {
            let mine: Vec<i64> = xs.iter().map(|x| x + rank).collect();
            let want: Vec<i64> = xs
                .iter()
                .map(|x| size * x + size * (size - 1) / 2)
                .collect();
            exact("sum", &recursive_doubling(world, &mine, buggy), &want)
        })
}

#[test]
fn a_correct_program_passes_at_1_2_3_4_8_ranks() {
    at_ranks(
        "a_correct_program_passes_at_1_2_3_4_8_ranks",
        &[1, 2, 3, 4, 8],
        |world| sum_property(world, false),
    );
}

#[test]
#[ignore = "planted fault: started by off_by_one_at_3_ranks_is_found_and_shrunk"]
fn planted_power_of_two_bug() {
    run_body("planted_power_of_two_bug", |world| {
        sum_property(world, true)
    });
}

#[test]
fn off_by_one_at_3_ranks_is_found_and_shrunk() {
    for n in [1, 2, 4] {
        let out = launch_self("planted_power_of_two_bug", n, &[]);
        assert!(
            verdict("planted_power_of_two_bug", n, &out).is_ok(),
            "{}",
            out.text()
        );
    }
    let out = launch_self("planted_power_of_two_bug", 3, &[]);
    let text = out.text();
    assert!(!out.success(), "the bug at 3 ranks went unnoticed:\n{text}");
    // Every rank adds its rank, so any one-element vector fails: shrinking must get there
    // (usually to [0]; proptest's shrinker may stop at another single value).
    assert!(text.contains("FAILED at 3 ranks"), "{text}");
    let case = text
        .split("minimal failing case: ")
        .nth(1)
        .and_then(|t| t.lines().next());
    let case = case.unwrap_or_else(|| panic!("no minimal case reported:\n{text}"));
    assert!(
        case.starts_with('[') && case.ends_with(']') && !case.contains(','),
        "not shrunk: {case}"
    );
    // Rank 1 misses rank 2's contribution.
    assert!(text.contains("rank 1 says: sum: element 0 is"), "{text}");
    assert!(text.contains("reproduce: WORKBOOK_SEED="), "{text}");
    keep_for_the_book(
        "planted_faults",
        "off_by_one_at_3_ranks_is_found_and_shrunk",
        &learner_view(&out),
    );
}

/// Both ranks send 4 MiB first, then receive: beyond the eager limit a send waits for
/// its receive, so both wait forever.
#[test]
#[ignore = "planted fault: started by a_deadlock_is_named_within_its_deadline"]
fn planted_deadlock() {
    run_body("planted_deadlock", |world| {
        let other = world.process_at_rank(1 - world.rank());
        property(world, "swap 4 MiB with the other rank")
            .cases(2)
            .check(Just(1usize << 19), |&n| {
                let mine = vec![world.rank() as f64; n];
                other.send(&mine[..]);
                let (theirs, _) = other.receive_vec::<f64>();
                exact("received length", &[theirs.len()], &[n])
            })
    });
}

#[test]
fn a_deadlock_is_named_within_its_deadline() {
    let out = launch_self("planted_deadlock", 2, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(15));
    for rank in 0..2 {
        let line = out
            .rank_lines(rank)
            .into_iter()
            .find(|l| l.contains("DEADLOCK?"));
        let line = line.unwrap_or_else(|| panic!("rank {rank} did not report:\n{text}"));
        assert!(
            line.contains("swap 4 MiB with the other rank case 1"),
            "{line}"
        );
        let peer = 1 - rank;
        assert!(
            line.contains(&format!("blocked in MPI_Send(dest={peer} tag=")),
            "{line}"
        );
        assert!(line.contains("4194304 bytes"), "{line}");
    }
    assert!(
        learner_view(&out).contains("every rank is sending"),
        "{text}"
    );
    keep_for_the_book(
        "planted_faults",
        "a_deadlock_is_named_within_its_deadline",
        &learner_view(&out),
    );
}

#[test]
#[ignore = "planted fault: started by a_panicking_rank_ends_the_job_quickly"]
fn planted_panic() {
    run_body("planted_panic", |world| {
        if world.rank() == 2 {
            let counts: Vec<usize> = vec![];
            let _ = counts[world.rank() as usize]; // index out of bounds on rank 2 only
        }
        world.barrier(); // the other ranks would wait here forever
        Ok(())
    });
}

#[test]
fn a_panicking_rank_ends_the_job_quickly() {
    let out = launch_self("planted_panic", 4, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(10));
    let said = out.rank_lines(2).join("\n");
    assert!(
        said.contains("rank 2: panicked at") && said.contains("index out of bounds"),
        "{text}"
    );
    keep_for_the_book(
        "planted_faults",
        "a_panicking_rank_ends_the_job_quickly",
        &learner_view(&out),
    );
}

#[test]
#[ignore = "planted fault: started by collectives_out_of_step_are_named"]
fn planted_out_of_step() {
    run_body("planted_out_of_step", |world| {
        if world.rank() == 0 {
            // A collective only rank 0 calls: it meets the others' verdict.
            let mut x = 0i32;
            world.all_reduce_into(&-5i32, &mut x, SystemOperation::min());
        }
        Ok(())
    });
}

#[test]
fn collectives_out_of_step_are_named() {
    let out = launch_self("planted_out_of_step", 3, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    let said = (1..3)
        .flat_map(|r| out.rank_lines(r))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("came back as -5, not a rank") && said.contains("out of step"),
        "{text}"
    );
}

/// The last line of defence: a job that outlives its deadline (here two ranks that sleep
/// without any MPI call, so no watchdog can speak) is killed whole, ranks included.
#[test]
fn a_job_past_its_deadline_is_killed_with_all_its_ranks() {
    let marker = "97.25"; // an unusual sleep length, to find leftover processes by
    let job = toolkit::launch::Job::new("sleep").args([marker]).ranks(2);
    let out = job.timeout(Duration::from_secs(2)).run().expect("mpirun");
    assert!(out.timed_out && out.status.is_none(), "{}", out.text());
    assert!(out.wall < Duration::from_secs(10), "took {:?}", out.wall);
    let leftovers: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.starts_with("sleep ") && c.contains(marker))
        .collect();
    assert!(
        leftovers.is_empty(),
        "ranks outlived the kill: {leftovers:?}"
    );
}
