//! Lab: a slow link, reproduced on one machine, found, and avoided.
//!
//! Run: `make run CH=10` (8 ranks; `SOLUTION=1` for the answers; `NP=3` for another
//! job). The lab first puts a network under every link (each message waits 50 µs plus
//! its bytes at 100 MB/s, through `toolkit::slow_links`), so that the times are a
//! network's, not the shared memory's. On top of it, one link is slowed by
//! `WORKBOOK_SLOW_LINK`; when the setting is unset the lab slows
//! `2-3:delay=200us,rate=10MB/s` itself, and says so. Expect: the link-timing matrix with
//! one link standing out, that link found (ex 10.1), chapter 3's ring and recursive
//! doubling (your ex 3.1, 3.2, 3.4) timed against the model at three sizes, the crossover
//! slowdown predicted (ex 10.2) and measured, and the "deadline" case: with a deadline
//! per allreduce between the two predicted times, the ring misses it and doubling does
//! not (compared, not enforced: nothing hangs); last, the ring in the order of ex 10.3,
//! which leaves the slow link out.

mod reorder;
mod timed;

use ch10::find::find_slow_links;
use ch10::matrix::{link_of, measure, LARGE};
use ch10::model::Links;
use ch10::AlphaBeta;
use mpi::traits::*;
use timed::{algorithms_under, crossover_sweep, deadline, network, Setup, SIZES};
use toolkit::gate::unless_todo;
use toolkit::slow_links::{self, rules, SETTING};

/// The lab's own slow link when the setting is unset: ranks 2-3 (neighbours in the ring,
/// partners in one round of recursive doubling), or the last two ranks of a smaller job.
fn lab_rule(p: i32) -> String {
    let link = match p {
        ..=1 => return String::new(),
        2 | 3 => format!("{}-{}", p - 2, p - 1),
        _ => "2-3".to_string(),
    };
    format!("{link}:delay=200us,rate=10MB/s")
}

/// Ping-pongs per message size and pair in the matrix.
const TRIPS: usize = 5;
/// A link is called slow above this many times the median link.
const FACTOR: f64 = 3.0;

fn main() {
    slow_links::default_rule(lab_rule);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let source = if slow_links::from_setting() {
        format!("from {SETTING}")
    } else {
        format!("the lab's own; set {SETTING} to choose another")
    };
    let text = std::env::var(SETTING).unwrap_or_else(|_| lab_rule(p as i32));
    match text.is_empty() {
        true => say("slow link: none (a job of 1 rank has no link)"),
        false => say(&format!("slow link: {text:?} ({source})")),
    }
    say("network under every link: 50 µs + bytes at 100 MB/s per message");
    say(&toolkit::report::oversubscription_note(p));
    if p < 2 {
        say("1 rank: no link to slow or to find; run with NP=8 (the default) or NP=3");
        return;
    }
    let slow_rules = rules();
    slow_links::set([network(p), slow_rules.clone()].concat());

    // 1. the link-timing matrix
    let fits = measure(&world, TRIPS);
    say(&format!(
        "\none-way time of a {} KiB message, µs:",
        LARGE >> 10
    ));
    if rank == 0 {
        print!("{}", ch10::matrix::matrix_table(&fits, p));
    }

    // 2. the slow links in it (ex 10.1)
    let found = match unless_todo(&world, || find_slow_links(&fits, LARGE, FACTOR)) {
        Ok(found) => found,
        Err(task) => toolkit::gate::stop_unfinished(&world, "slow_link", &task),
    };
    say(&format!("\nlinks over {FACTOR} x the median link:"));
    for s in &found {
        say(&format!(
            "  {}-{}: {:.1} x the median",
            s.a, s.b, s.times_median
        ));
    }
    if found.is_empty() {
        say("  none");
    }
    let mut sorted: Vec<AlphaBeta> = fits.iter().map(|f| f.link).collect();
    sorted.sort_by(|x, y| x.predict(LARGE as f64).total_cmp(&y.predict(LARGE as f64)));
    let fast = sorted[(sorted.len() - 1) / 2];
    say(&format!(
        "median link: alpha {:.0} µs, beta {:.1} MB/s",
        fast.alpha * 1e6,
        fast.beta / 1e6
    ));
    let setup = Setup { fast, p };

    // 3. chapter 3's ring and recursive doubling, predicted from the measured links
    let slow = found
        .iter()
        .filter_map(|s| Some((s.a, s.b, link_of(&fits, s.a, s.b)?)));
    let links = Links {
        fast,
        slow: slow.collect(),
    };
    let Some(largest) = algorithms_under(&world, &setup, &links) else {
        return;
    };
    // 4. the crossover, predicted (ex 10.2) and measured
    crossover_sweep(&world, &setup);
    slow_links::set([network(p), slow_rules].concat());
    // 5. the deadline
    deadline(&world, largest);
    // 6. a ring that leaves the slow links out (ex 10.3)
    reorder::avoiding_ring(&world, &setup, &links, SIZES[SIZES.len() - 1], largest);
}
