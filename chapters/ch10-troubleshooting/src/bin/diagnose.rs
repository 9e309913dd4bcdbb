//! Diagnose: chapter 10's two measurements on whatever the ranks run on, each ending in a
//! one-line verdict: the link-timing matrix (are some links slow?) and the straggler scan
//! (is one rank late to every collective?).
//!
//! Run: `make diagnose` (NP=4 by default, `NP=8` for more). It goes where `make run` goes:
//! this machine, `CLUSTER=netns` (the two-node namespace cluster), `MPIRUN=srun` (Slurm).
//! `make diagnose` builds it with `--features solution`: its verdicts need the answers to
//! ex 10.1 (`find_slow_links`) and ex 10.4 (`score_ranks`, `find_stragglers`). It is a
//! tool, not a lab (course.toml does not list it); built without the answers, it says
//! which exercise to finish. Plant a problem to see it found:
//! `WORKBOOK_SLOW_LINK='1-2:delay=1ms' make diagnose` names the link 1-2,
//! `WORKBOOK_STRAGGLER='2:delay=3ms' make diagnose` names rank 2.
//!
//! Expect: the matrix of one-way times of a 256 KiB message (every pair's ping-pong,
//! fitted to alpha and beta: `ch10::matrix`), its verdict, then each rank's mean lateness
//! over 40 allreduces of a training-like loop (`ch10::skew`: a 4 ms sleep as the compute,
//! so the scan finds a rank late for reasons other than its compute's speed), its verdict.
//! A link is slow above 3 times the median link (ex 10.1). When most links are slow (two
//! nodes: the pairs that cross them outnumber those within), the median link is a slow
//! one; then the links split in two groups at the largest jump in their sorted times, and
//! the slow group is measured against the fast group's median. With 1 rank there is
//! nothing to compare, and it says so. Each link keeps its fastest of several passes of
//! the matrix, but on a machine whose cores run other programs, a rank that shares its
//! core with one can still make its links read slow (2 runs in 12, measured on 2 cores
//! next to two builds): a verdict that changes from run to run is the machine, not a link.

use ch10::find::find_slow_links;
use ch10::matrix::{measure, PairFit, LARGE};
use ch10::skew::train;
use ch10::straggler::{find_stragglers, score_ranks};
use mpi::traits::*;
use std::time::Duration;
use toolkit::gate::unless_todo;

/// Ping-pongs per message size and pair (the shortest is kept).
const TRIPS: usize = 10;
/// Passes of the whole matrix; each link keeps its fastest pass. On a busy machine a pair
/// is slow only while something else holds a core, and the passes are spread in time:
/// with one pass, 3 of 6 runs on this 2-core machine (shared with builds) named a
/// shared-memory link slow.
const PASSES: usize = 5;
/// A link is slow above this many times the reference (the median link). 3, as in the
/// `slow_link` lab: shared-memory links on a busy machine differ by up to 2x.
const FACTOR: f64 = 3.0;
/// Steps of the straggler scan.
const STEPS: usize = 40;
/// Each step's compute (a sleep).
const COMPUTE: Duration = Duration::from_millis(4);
/// The gradient of each allreduce: 1 Ki floats.
const FLOATS: usize = 1 << 10;
/// A rank is a straggler above this mean lateness (seconds), as in the `straggler` lab.
const THRESHOLD: f64 = 1e-3;

/// The one-way time of a [`LARGE`] message over a link, in seconds.
fn time(f: &PairFit) -> f64 {
    f.link.predict(LARGE as f64)
}

/// The link-timing matrix, [`PASSES`] times, with each link's fastest fit (collective).
fn fastest_of(world: &mpi::topology::SimpleCommunicator) -> Vec<PairFit> {
    let mut best = measure(world, TRIPS);
    for _ in 1..PASSES {
        std::thread::sleep(Duration::from_millis(100));
        for (b, f) in best.iter_mut().zip(measure(world, TRIPS)) {
            if time(&f) < time(b) {
                *b = f;
            }
        }
    }
    best
}

/// The median of `times` (the mean of the middle two for an even count); `times` not empty.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    (times[(n - 1) / 2] + times[n / 2]) / 2.0
}

/// When most links are slow, ex 10.1's median is a slow link: split the links at the
/// largest jump between neighbours in their sorted times, if it is over [`FACTOR`], and
/// give each link of the slow group with its time over the fast group's median.
fn two_groups(fits: &[PairFit]) -> Option<(Vec<(PairFit, f64)>, usize)> {
    let mut sorted = fits.to_vec();
    sorted.sort_by(|x, y| time(x).total_cmp(&time(y)));
    let (cut, jump) = (1..sorted.len())
        .map(|i| (i, time(&sorted[i]) / time(&sorted[i - 1]).max(1e-12)))
        .max_by(|x, y| x.1.total_cmp(&y.1))?;
    if jump <= FACTOR {
        return None;
    }
    let fast = median(sorted[..cut].iter().map(time).collect());
    let mut slow: Vec<(PairFit, f64)> =
        sorted[cut..].iter().map(|f| (*f, time(f) / fast)).collect();
    slow.sort_by_key(|(f, _)| (f.a, f.b));
    Some((slow, cut))
}

/// The links' verdict, one line; `Err` with the exercise to finish.
fn links_verdict(
    world: &mpi::topology::SimpleCommunicator,
    fits: &[PairFit],
) -> Result<String, String> {
    let found = unless_todo(world, || find_slow_links(fits, LARGE, FACTOR))?;
    if fits.len() < 2 {
        return Ok("1 link: nothing to compare it with (NP=3 or more)".into());
    }
    if !found.is_empty() {
        let each: Vec<String> = found
            .iter()
            .map(|s| format!("{}-{} at {:.1}x", s.a, s.b, s.times_median))
            .collect();
        return Ok(format!("slow links: {} the median", each.join(", ")));
    }
    if let Some((slow, n_fast)) = two_groups(fits) {
        let each: Vec<String> = slow
            .iter()
            .map(|(f, x)| format!("{}-{} at {x:.1}x", f.a, f.b))
            .collect();
        return Ok(format!(
            "slow links: {} the median of the {n_fast} fast links \
             (most links are slow, so the median link is one of them)",
            each.join(", ")
        ));
    }
    Ok(format!(
        "no slow link: every pair within {FACTOR:.0}x the median"
    ))
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    say(&format!("diagnose: {p} rank(s)"));
    say(&toolkit::report::oversubscription_note(p));
    if p < 2 {
        return say(
            "1 rank: nothing to compare (no link to time, no other rank to be late next to); \
             run with NP=4 (the default) or more",
        );
    }

    // 1. the link-timing matrix and its verdict (ex 10.1)
    let fits = fastest_of(&world);
    say(&format!(
        "\nlinks: one-way time of a {} KiB message, µs (fitted to the shortest of {TRIPS} \
         ping-pongs per size; each link's fastest of {PASSES} passes):",
        LARGE >> 10
    ));
    if rank == 0 {
        print!("{}", ch10::matrix::matrix_table(&fits, p));
        let times: Vec<f64> = fits.iter().map(time).collect();
        println!("median link: {:.0} µs", median(times) * 1e6);
    }
    match links_verdict(&world, &fits) {
        Ok(verdict) => say(&format!("verdict, links: {verdict}")),
        Err(task) => return say(&format!("\nfinish {task} first, or run `make diagnose`")),
    }

    // 2. the straggler scan and its verdict (ex 10.4)
    let run = train(&world, STEPS, COMPUTE, FLOATS);
    let at = run.arrivals.map(|m| m.at).unwrap_or_default();
    let scores = match unless_todo(&world, || score_ranks(&at)) {
        Ok(scores) => scores,
        Err(task) => return say(&format!("\nfinish {task} first, or run `make diagnose`")),
    };
    let found = match unless_todo(&world, || find_stragglers(&scores, THRESHOLD)) {
        Ok(found) => found,
        Err(task) => return say(&format!("\nfinish {task} first, or run `make diagnose`")),
    };
    say(&format!(
        "\nstragglers: {STEPS} steps of {} ms compute (a sleep) and an allreduce of {} KiB; \
         per rank (late: after each allreduce's median arrival):",
        COMPUTE.as_millis(),
        (FLOATS * 4) >> 10
    ));
    say("  rank  late ms    last");
    for s in &scores {
        say(&format!(
            "  {:>4} {:>8.2} {:>4}/{STEPS}",
            s.rank,
            s.lateness * 1e3,
            s.last
        ));
    }
    let verdict = match found.as_slice() {
        [] => format!(
            "no straggler: every rank within {:.1} ms of the median arrival on average",
            THRESHOLD * 1e3
        ),
        [r, rest @ ..] => {
            let s = &scores[*r];
            let also: Vec<String> = rest.iter().map(|q| format!("rank {q}")).collect();
            let also = match also.is_empty() {
                true => String::new(),
                false => format!("; also late: {}", also.join(", ")),
            };
            format!(
                "rank {r} was last at {} of {STEPS} collectives, {:.1} ms late on average{also}",
                s.last,
                s.lateness * 1e3
            )
        }
    };
    say(&format!("verdict, stragglers: {verdict}"));
}
