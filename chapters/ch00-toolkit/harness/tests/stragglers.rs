//! `WORKBOOK_STRAGGLER` and the arrival recorder checked under mpirun: the slowed rank
//! enters each collective late by what its rule says, the others do not, the matrix
//! reaches rank 0 whole, and a bad setting stops the job in one line before any
//! communication. Run: `cargo test -q -p toolkit --test stragglers`.
//!
//! The parse and the messages of bad rules are checked first, without MPI. The `timed_*`
//! and `bad_*` functions are the programs; they are `#[ignore]`d and started only by the
//! tests below, through `launch_self`. Last, the other slow machine: one that another job
//! keeps busy, where each rank runs in a session of its own.

use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::time::Duration;
use toolkit::arrivals;
use toolkit::stragglers::{check_ranks, parse, SETTING};
use toolkit::testing::{assert_failed_within, launch_self, learner_view, run_body};

#[test]
fn rules_parse_with_their_units() {
    let rules = parse("3:delay=2ms; 5:delay=500us;").unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(
        (rules[0].rank, rules[0].delay),
        (3, Duration::from_millis(2))
    );
    assert_eq!(
        (rules[1].rank, rules[1].delay),
        (5, Duration::from_micros(500))
    );
    assert!(parse("").unwrap().is_empty());
}

#[test]
fn bad_rules_name_the_setting_the_rule_and_the_fix() {
    for (rule, says) in [
        ("delay=2ms", "no RANK: before the delay"),
        ("x:delay=2ms", "rank \"x\" is not a rank number"),
        ("-1:delay=2ms", "rank \"-1\" is not a rank number"),
        ("3:delay=2", "delay needs a number and a unit"),
        ("3:lag=2ms", "\"lag=2ms\" is not delay=TIME"),
        ("3-4:delay=2ms", "rank \"3-4\" is not a rank number"),
    ] {
        let err = parse(rule).unwrap_err();
        assert!(
            err.starts_with(SETTING) && err.contains(rule) && err.contains(says),
            "{rule}: {err}"
        );
        assert!(
            err.contains("(e.g. WORKBOOK_STRAGGLER='3:delay=2ms')"),
            "no example of a good rule: {err}"
        );
    }
}

#[test]
fn a_rank_past_the_world_is_refused_with_the_rank_count_to_run() {
    let rules = parse("1:delay=1ms;7:delay=1ms").unwrap();
    assert!(check_ranks(&rules, 8).is_ok());
    let err = check_ranks(&rules, 4).unwrap_err();
    assert!(
        err.contains("rule 7:delay=1ms") && err.contains("ranks 0 to 3") && err.contains("NP=8"),
        "{err}"
    );
}

/// Collectives per run.
const ROUNDS: usize = 10;

/// Every rank lines up in a sleeping barrier (not slowed, not recorded), then starts an
/// `MPI_Iallreduce` and waits for it without spinning (`toolkit::idle::wait`: under MPICH
/// a rank blocked in `MPI_Allreduce` spins and takes the straggler's core), `ROUNDS` times
/// while recording; rank 0 prints each rank's median
/// lateness over the earliest arrival, in microseconds: `LATE 2 = 2110 us`.
#[test]
#[ignore = "started by the_slowed_rank_arrives_last_by_its_delay"]
fn timed_arrivals() {
    run_body("timed_arrivals", |world| {
        arrivals::start();
        for _ in 0..ROUNDS {
            toolkit::idle::barrier(world);
            let mut sum = 0i32;
            mpi::request::scope(|scope| {
                let op = SystemOperation::sum();
                toolkit::idle::wait(world.immediate_all_reduce_into(scope, &1, &mut sum, op));
            });
        }
        let mine = arrivals::stop();
        let Some(m) = arrivals::gather(world, &mine) else {
            return Ok(());
        };
        let p = world.size() as usize;
        assert_eq!(m.recorded, vec![ROUNDS; p], "each rank recorded every call");
        assert!(
            m.calls.iter().all(|c| *c == ("MPI_Iallreduce", 4)),
            "{:?}",
            m.calls
        );
        for r in 0..p {
            let mut late: Vec<f64> =
                m.at.iter()
                    .map(|row| row[r] - row.iter().copied().fold(f64::INFINITY, f64::min))
                    .collect();
            late.sort_by(f64::total_cmp);
            println!("LATE {r} = {:.0} us", late[late.len() / 2] * 1e6);
        }
        Ok(())
    });
}

/// The median lateness of `rank` the program printed, in microseconds.
fn late(text: &str, rank: usize) -> f64 {
    let key = format!("LATE {rank} = ");
    let line = text.lines().find_map(|l| l.split(&key).nth(1));
    let us = line.and_then(|l| l.trim_end_matches(" us").trim().parse().ok());
    us.unwrap_or_else(|| panic!("no {key:?} in:\n{text}"))
}

#[test]
fn the_slowed_rank_arrives_last_by_its_delay() {
    let out = launch_self("timed_arrivals", 3, &[(SETTING, "1:delay=3ms")]);
    assert!(out.success(), "{}", out.text());
    let text = out.text();
    let slowed = late(&text, 1);
    println!(
        "rank 1 (3:delay=3ms) arrived {slowed:.0} us after the earliest rank (median of {ROUNDS})"
    );
    assert!(
        (2_900.0..6_000.0).contains(&slowed),
        "rank 1 waits 3000 us before each allreduce; it arrived {slowed:.0} us late:\n{text}"
    );
    for other in [0, 2] {
        let l = late(&text, other);
        assert!(
            l < 1_000.0,
            "rank {other} is not slowed, yet {l:.0} us late:\n{text}"
        );
    }
    // Without the rule nobody stands out.
    let plain = launch_self("timed_arrivals", 3, &[]);
    assert!(plain.success(), "{}", plain.text());
    let l = late(&plain.text(), 1);
    assert!(
        l < 1_000.0,
        "no rule, yet rank 1 is {l:.0} us late:\n{}",
        plain.text()
    );
}

#[test]
#[ignore = "started by bad_settings_stop_the_job_in_one_line"]
fn bad_setting_program() {
    run_body("bad_setting_program", |world| {
        println!("COMMUNICATED on rank {}", world.rank());
        world.barrier();
        Ok(())
    });
}

#[test]
fn bad_settings_stop_the_job_in_one_line() {
    for (setting, says) in [
        (
            "5:delay=1ms",
            "rule 5:delay=1ms: this job has ranks 0 to 2 only",
        ),
        (
            "1:delay=fast",
            "rule \"1:delay=fast\": delay needs a number and a unit",
        ),
        ("1=2ms", "no RANK: before the delay"),
    ] {
        let out = launch_self("bad_setting_program", 3, &[(SETTING, setting)]);
        let text = out.text();
        assert!(!out.success(), "{setting} was accepted:\n{text}");
        assert!(
            !text.contains("COMMUNICATED"),
            "ran before refusing:\n{text}"
        );
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("WORKBOOK_STRAGGLER rule"))
            .collect();
        assert_eq!(said.len(), 1, "{setting}: not one line:\n{text}");
        assert!(said[0].contains(says), "{setting}: {}", said[0]);
    }
}

/// A shared machine (`WORKBOOK_SHARED=1`, as the launcher sets it when it measures a load):
/// every rank runs in a session of its own (toolkit::sharing), and a panic there is still
/// the rank's own report and ends the job.
#[test]
#[ignore = "planted fault: started by a_rank_in_a_session_of_its_own_still_fails_fast"]
fn planted_panic_on_a_shared_machine() {
    run_body("planted_panic_on_a_shared_machine", |world| {
        // SAFETY: getsid and getpid read this process's own ids.
        let (leader, mut all) = (u8::from(unsafe { libc::getsid(0) == libc::getpid() }), 0);
        world.all_reduce_into(&leader, &mut all, SystemOperation::min());
        assert_eq!(all, 1, "a rank is not the leader of a session of its own");
        assert!(
            world.rank() != 1,
            "planted panic on rank 1, in a session of its own"
        );
        world.barrier();
        Ok(())
    });
}

#[test]
fn a_rank_in_a_session_of_its_own_still_fails_fast() {
    let out = launch_self(
        "planted_panic_on_a_shared_machine",
        2,
        &[("WORKBOOK_SHARED", "1")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let view = learner_view(&out);
    let named = view.contains("rank 1: panicked at") && view.contains("planted panic on rank 1");
    assert!(named && !view.contains("not the leader"), "{view}\n{text}");
}
