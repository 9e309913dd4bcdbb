//! `WORKBOOK_SLOW_LINK` checked under mpirun: a slowed pair's ping-pong is slower by what
//! the rule says, a link not named is not, and a bad setting stops the job in one line
//! before any communication. Run: `cargo test -q -p toolkit --test slow_links`.
//!
//! The parse and the messages of bad rules are checked first, without MPI.
//!
//! The `timed_*` and `bad_*` functions are the programs; they are `#[ignore]`d and started
//! only by the tests below, through `launch_self`.

use mpi::traits::*;
use std::time::Duration;
use std::time::Instant;
use toolkit::slow_links::{check_ranks, parse, SETTING};
use toolkit::testing::{launch_self, run_body};

#[test]
fn rules_parse_with_their_units_and_directions() {
    let rules = parse("2-3:delay=500us,rate=20MB/s; 5>6:rate=1MiB/s,1-0:delay=2ms").unwrap();
    assert_eq!(rules.len(), 3);
    let r = &rules[0];
    assert_eq!((r.from, r.to, r.both_ways), (2, 3, true));
    assert_eq!(r.delay, Duration::from_micros(500));
    assert_eq!(r.rate, Some(20e6));
    assert!(r.carries(2, 3) && r.carries(3, 2) && !r.carries(2, 4));
    // 500 us + 1 MB at 20 MB/s = 50.5 ms
    assert_eq!(r.extra(1_000_000), Duration::from_micros(50_500));
    let one_way = &rules[1];
    assert!(one_way.carries(5, 6) && !one_way.carries(6, 5));
    assert_eq!(
        (one_way.rate, one_way.delay),
        (Some(1048576.0), Duration::ZERO)
    );
    assert_eq!(rules[2].delay, Duration::from_millis(2));
    assert!(parse("").unwrap().is_empty());
}

#[test]
fn bad_rules_name_the_setting_the_rule_and_the_fix() {
    for (rule, says) in [
        ("delay=1ms", "no A-B: or A>B:"),
        ("2:delay=1ms", "A-B (both ways) or A>B"),
        ("2-x:delay=1ms", "rank \"x\" is not a number"),
        ("3-3:delay=1ms", "two different ranks"),
        ("2-3:delay=1", "delay needs a unit"),
        ("2-3:rate=fast", "rate needs a positive number"),
        ("2-3:rate=0MB/s", "rate needs a positive number"),
        ("2-3:lag=1ms", "neither delay=TIME nor rate=BYTES/s"),
    ] {
        let err = parse(rule).unwrap_err();
        assert!(
            err.starts_with(SETTING) && err.contains(rule) && err.contains(says),
            "{rule}: {err}"
        );
        assert!(
            err.contains("(e.g. WORKBOOK_SLOW_LINK='2-3:delay=500us,rate=20MB/s')"),
            "no example of a good rule: {err}"
        );
    }
}

#[test]
fn a_rank_past_the_world_is_refused_with_the_rank_count_to_run() {
    let rules = parse("0-1:delay=1ms;2>7:delay=1ms").unwrap();
    assert!(check_ranks(&rules, 8).is_ok());
    let err = check_ranks(&rules, 4).unwrap_err();
    assert!(
        err.contains("rule 2>7") && err.contains("ranks 0 to 3"),
        "{err}"
    );
    assert!(err.contains("NP=8"), "{err}");
}

/// Round trips per measurement.
const TRIPS: usize = 10;
/// The message each way: 100 kB.
const BYTES: usize = 100_000;

/// Rank 0 ping-pongs with rank 1, then with rank 2 (when there is one), and prints the
/// shortest round trip of each in microseconds: `ROUND TRIP 0-1 = 1234 us`. The shortest:
/// a busy machine only ever adds to a round trip, and the rule's wait is in every one.
#[test]
#[ignore = "started by a_slowed_link_is_slower_by_what_its_rule_says"]
fn timed_pingpong() {
    run_body("timed_pingpong", |world| {
        let rank = world.rank();
        let mut buf = vec![0u8; BYTES];
        for peer in 1..world.size().min(3) {
            let mut trips = vec![];
            for _ in 0..TRIPS {
                let start = Instant::now();
                if rank == 0 {
                    world.process_at_rank(peer).send(&buf[..]);
                    world.process_at_rank(peer).receive_into(&mut buf[..]);
                } else if rank == peer {
                    world.process_at_rank(0).receive_into(&mut buf[..]);
                    world.process_at_rank(0).send(&buf[..]);
                }
                trips.push(start.elapsed().as_secs_f64());
            }
            let shortest = trips.iter().copied().fold(f64::INFINITY, f64::min);
            if rank == 0 {
                let us = shortest * 1e6;
                println!("ROUND TRIP 0-{peer} = {us:.0} us");
            }
            // The others wait without spinning, or under MPICH they take the cores of
            // the pair being timed (toolkit::idle).
            toolkit::idle::barrier(world);
        }
        Ok(())
    });
}

/// The timed tests run one at a time: two jobs timed at once would share the cores, and
/// under MPICH, whose waiting ranks spin, each would slow the other's messages by
/// milliseconds.
static ONE_TIMED_JOB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The shortest round trip between 0 and `peer` the program printed, in microseconds.
fn round_trip(text: &str, peer: i32) -> f64 {
    let key = format!("ROUND TRIP 0-{peer} = ");
    let line = text.lines().find_map(|l| l.split(&key).nth(1));
    let us = line.and_then(|l| l.trim_end_matches(" us").trim().parse().ok());
    us.unwrap_or_else(|| panic!("no {key:?} in:\n{text}"))
}

/// Attempts at a timed comparison: a machine busy with other work (a build beside the
/// tests) can slow a whole plain run by milliseconds; a broken rule fails every attempt.
const ATTEMPTS: usize = 3;

/// Runs `timed_pingpong` at `ranks` plain, then with `rule`, until `accept` takes the pair
/// of outputs (at most [`ATTEMPTS`] times); `Err` holds every attempt's outputs.
fn plain_then_slowed(
    ranks: u32,
    rule: &str,
    accept: impl Fn(&str, &str) -> bool,
) -> Result<(), String> {
    let _alone = ONE_TIMED_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let mut seen = String::new();
    for attempt in 1..=ATTEMPTS {
        let plain = launch_self("timed_pingpong", ranks, &[]);
        assert!(plain.success(), "{}", plain.text());
        let slowed = launch_self("timed_pingpong", ranks, &[("WORKBOOK_SLOW_LINK", rule)]);
        assert!(slowed.success(), "{}", slowed.text());
        let (before, after) = (plain.text(), slowed.text());
        if accept(&before, &after) {
            return Ok(());
        }
        seen += &format!("attempt {attempt}, plain:\n{before}\nwith {rule}:\n{after}\n");
    }
    Err(seen)
}

#[test]
fn a_slowed_link_is_slower_by_what_its_rule_says() {
    // Both ways, 2 ms + 100 kB at 50 MB/s (2 ms): 4 ms per message, 8 ms per round trip;
    // the link 0-2 is not named: it stays within 2 ms of its plain time.
    let verdict = plain_then_slowed(3, "0-1:delay=2ms,rate=50MB/s", |before, after| {
        let added = round_trip(after, 1) - round_trip(before, 1);
        let other = round_trip(after, 2) - round_trip(before, 2);
        (7_600.0..13_000.0).contains(&added) && other < 2_000.0
    });
    if let Err(seen) = verdict {
        panic!("the rule adds 8000 us per round trip to 0-1 and nothing to 0-2, measured:\n{seen}");
    }
}

#[test]
fn a_one_way_rule_slows_one_direction() {
    let verdict = plain_then_slowed(2, "1>0:delay=3ms", |before, after| {
        let added = round_trip(after, 1) - round_trip(before, 1);
        (2_850.0..5_500.0).contains(&added)
    });
    if let Err(seen) = verdict {
        panic!("1>0 adds 3000 us per round trip (only the way back), measured:\n{seen}");
    }
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
        ("0-5:delay=1ms", "rule 0-5: this job has ranks 0 to 2 only"),
        (
            "0-1:delay=fast",
            "rule \"0-1:delay=fast\": delay needs a unit",
        ),
        ("0~1:delay=1ms", "the link must be A-B (both ways) or A>B"),
    ] {
        let out = launch_self("bad_setting_program", 3, &[("WORKBOOK_SLOW_LINK", setting)]);
        let text = out.text();
        assert!(!out.success(), "{setting} was accepted:\n{text}");
        assert!(
            !text.contains("COMMUNICATED"),
            "ran before refusing:\n{text}"
        );
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("WORKBOOK_SLOW_LINK rule"))
            .collect();
        assert_eq!(said.len(), 1, "{setting}: not one line:\n{text}");
        assert!(said[0].contains(says), "{setting}: {}", said[0]);
    }
}
