//! Lab: a straggler (one slow rank), reproduced on one machine, found from the numbers,
//! and what it costs.
//!
//! Run: `make run CH=10 BIN=straggler` (8 ranks; `SOLUTION=1` for the answers; `NP=3` for
//! another job). Each step of a training-like loop is a fixed compute (a sleep, so that 8
//! ranks on 2 cores do not fight for cores) and an allreduce of the gradient; the harness
//! records when each rank entered each allreduce (`toolkit::arrivals`). One rank is made
//! slower by `WORKBOOK_STRAGGLER` (it waits before each collective); when the setting is
//! unset the lab slows rank 5 (or the last rank of a smaller job) by 2 ms itself, and says
//! so. Expect: the loop timed without and with the straggler, a table per rank (mean
//! lateness over the median arrival and times last: ex 10.4; time waited: ex 10.5), a bar
//! per rank, the straggler named, and what it costs per step.

use ch10::skew::{train, Run};
use ch10::straggler::{find_stragglers, score_ranks};
use ch10::waiting::time_waited;
use mpi::traits::*;
use std::time::Duration;
use toolkit::gate::unless_todo;
use toolkit::stragglers::{self, rules, SETTING};

/// The lab's own straggler when the setting is unset: rank 5 of 8, or the last rank.
fn lab_rule(p: i32) -> String {
    match p {
        ..=1 => String::new(),
        _ => format!("{}:delay=2ms", (p / 2 + 1).min(p - 1)),
    }
}

/// Steps per run.
const STEPS: usize = 40;
/// Each step's compute.
const COMPUTE: Duration = Duration::from_millis(4);
/// The gradient: 1 Ki floats (4 KiB): small, so that the allreduce itself is short next
/// to the compute and the delay.
const FLOATS: usize = 1 << 10;
/// A rank is called a straggler above this mean lateness, in seconds.
const THRESHOLD: f64 = 1e-3;

fn main() {
    stragglers::default_rule(lab_rule);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    if p < 2 {
        return say("1 rank: nothing to compare (a straggler is late next to others); run with NP=8 (the default) or NP=3");
    }
    let source = match stragglers::from_setting() {
        true => format!("from {SETTING}"),
        false => format!("the lab's own; set {SETTING} to choose another"),
    };
    let text = std::env::var(SETTING).unwrap_or_else(|_| lab_rule(p as i32));
    say(&format!("straggler: {text:?} ({source})"));
    say(&toolkit::report::oversubscription_note(p));
    say(&format!(
        "each step: {} ms of compute (a sleep), then an allreduce of {} KiB; {STEPS} steps",
        COMPUTE.as_millis(),
        (FLOATS * 4) >> 10
    ));
    let slow = rules();
    stragglers::set(vec![]);
    let plain = train(&world, STEPS, COMPUTE, FLOATS);
    stragglers::set(slow);
    let slowed = train(&world, STEPS, COMPUTE, FLOATS);
    let Run { arrivals, step } = slowed;
    let at = arrivals.map(|m| m.at).unwrap_or_default();

    let scores = match unless_todo(&world, || score_ranks(&at)) {
        Ok(scores) => scores,
        Err(task) => toolkit::gate::stop_unfinished(&world, "straggler", &task),
    };
    let waited = unless_todo(&world, || time_waited(&at)).ok();
    say(&format!(
        "\nper rank, over {STEPS} allreduces (ms; late: after the median arrival):"
    ));
    say("  rank    late    last  waited/step  late, one # per 0.1 ms");
    for s in &scores {
        let w = waited.as_ref().map_or("(ex 10.5)".to_string(), |w| {
            format!("{:.2}", w[s.rank] * 1e3 / STEPS as f64)
        });
        let bar = "#".repeat((s.lateness.max(0.0) * 1e4).round().min(40.0) as usize);
        say(&format!(
            "  {:>4} {:>7.2} {:>4}/{STEPS} {w:>12}  |{bar}",
            s.rank,
            s.lateness * 1e3,
            s.last
        ));
    }
    let found = find_stragglers(&scores, THRESHOLD);
    say(&format!(
        "\nstragglers (over {:.1} ms late):",
        THRESHOLD * 1e3
    ));
    for &r in &found {
        say(&format!(
            "  rank {r}: {:.2} ms late per step",
            scores[r].lateness * 1e3
        ));
    }
    if found.is_empty() {
        say("  none");
    }
    let (before, after) = (plain.step * 1e3, step * 1e3);
    say(&format!(
        "\nmedian step time on rank 0: {before:.2} ms without the straggler, {after:.2} ms with it: \
         {:+.2} ms ({:+.0}%) per step",
        after - before,
        (after / before - 1.0) * 100.0
    ));
    if let (Some(w), [r, ..]) = (&waited, found.as_slice()) {
        let others: f64 = (0..p).filter(|q| q != r).map(|q| w[q]).sum();
        say(&format!(
            "the other {} ranks waited {:.2} ms per step in all for rank {r} (ex 10.5): \
             {:.2} ms each",
            p - 1,
            others * 1e3 / STEPS as f64,
            others * 1e3 / STEPS as f64 / (p - 1) as f64
        ));
    }
}
