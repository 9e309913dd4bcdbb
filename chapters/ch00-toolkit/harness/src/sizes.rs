//! Every rank count of a test in one launch.
//!
//! A test that runs at several rank counts (`at &[1, 2, 3, 4]`) used to pay one `mpirun`
//! per count: a launch, `MPI_Init` and, for the trainers, LibTorch's start on every rank,
//! about a second each on a laptop. Now [`crate::testing::at_ranks`] launches once, at the
//! largest count, and the ranks run the body once per count, in the order given:
//!
//! 1. every rank calls `MPI_Comm_split`: ranks `0..n` get a communicator of `n` ranks,
//!    the others none;
//! 2. the `n` ranks run the body on it exactly as they would on a world of `n` ranks: the
//!    same watchdog (a blocked call is named after the case deadline), the same verdict
//!    agreed over the `n` ranks, and rank 0's line `[workbook] ran `test` at n ranks`;
//!    it is the test's world ([`crate::job::test_world`]): the flight recorder names it
//!    `WORLD`, the arrival recorder records it, and a rank's number is its
//!    world rank, so every report reads as it did in a launch of `n` ranks;
//! 3. the other ranks wait without spinning (`MPI_Iallreduce`, then `MPI_Test` and a
//!    nap), so a 2-rank case runs at the speed it would alone;
//! 4. every rank learns whether count `n` failed; the first failure ends the launch.
//!
//! A panic or a hang ends the whole job as before; rank 0 says which count was running
//! (`[workbook] size ...`, read by the parent and left out of the learner's view), and
//! the test fails "at n ranks" with the same report a launch of `n` ranks gave. Only
//! what a launch is the subject of (a killed rank, the NP=1 re-launch, a refused world
//! size, a planted fault at one count) still launches on its own.

use crate::launch::Outcome;
use crate::report::rank_count;
use mpi::collective::SystemOperation;
use mpi::environment::Threading;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::time::Duration;

/// `WORKBOOK_SIZES=<test>=1,2,3`: the parent asks the ranks of `<test>` to run each count.
pub(crate) const ENV: &str = "WORKBOOK_SIZES";
/// Rank 0's line when a count starts: `[workbook] size `test` at 3 ranks`.
pub(crate) const STARTING: &str = "[workbook] size";

/// The environment value that asks for `sizes` of `test_name`.
pub(crate) fn env_value(test_name: &str, sizes: &[u32]) -> String {
    let list: Vec<String> = sizes.iter().map(u32::to_string).collect();
    format!("{test_name}={}", list.join(","))
}

/// The counts the parent asked this rank to run for `test_name`, if it asked.
pub(crate) fn wanted(test_name: &str) -> Option<Vec<u32>> {
    let value = std::env::var(ENV).ok()?;
    let (name, list) = value.rsplit_once('=')?;
    let sizes = list.split(',').map(|n| n.parse().ok());
    (name == test_name).then(|| sizes.collect::<Option<Vec<u32>>>())?
}

/// On a rank: each count of `sizes` on its own communicator, then exit 0 if every one
/// passed, 1 at the first that failed.
pub(crate) fn run_each<F>(test_name: &str, sizes: &[u32], needed: Threading, body: F) -> !
where
    F: Fn(&SimpleCommunicator) -> Result<(), String>,
{
    // libtest has printed `test NAME ... ` without a newline: end that line first.
    println!();
    let universe = crate::spmd::start_rank_with(needed);
    let world = universe.world();
    let me = world.rank();
    let mut failed = false;
    // ANCHOR: each_count
    for &n in sizes {
        if me == 0 {
            println!("{STARTING} `{test_name}` at {}", rank_count(n as usize));
        }
        let color = match me < n as i32 {
            true => Color::with_value(0),
            false => Color::undefined(),
        };
        let part = unrecorded(|| world.split_by_color(color));
        let mine_failed = match &part {
            Some(comm) => {
                crate::job::set_test_world(Some(comm.as_raw()));
                let verdict = crate::testing::run_once(test_name, comm, &body);
                crate::job::set_test_world(None);
                verdict.is_err()
            }
            None => false,
        };
        unrecorded(|| drop(part));
        if unrecorded(|| any_failed(&world, mine_failed)) {
            failed = true;
            break;
        }
    }
    // ANCHOR_END: each_count
    drop(world);
    drop(universe);
    std::process::exit(i32::from(failed));
}

/// The harness's own calls between two counts are left out of the recorders, so the
/// reports number the body's collectives as a launch of its own did.
fn unrecorded<T>(f: impl FnOnce() -> T) -> T {
    let was = crate::intercept::is_recording();
    crate::intercept::set_recording(false);
    let out = f();
    crate::intercept::set_recording(was);
    out
}

/// How long a rank with nothing to do sleeps between two tests of the allreduce.
const NAP: Duration = Duration::from_millis(1);

/// True on every rank when one of them failed; waits without spinning.
fn any_failed(world: &SimpleCommunicator, mine: bool) -> bool {
    let send = i32::from(mine);
    let mut any = 0i32;
    mpi::request::scope(|scope| {
        let mut request =
            world.immediate_all_reduce_into(scope, &send, &mut any, SystemOperation::max());
        loop {
            match request.test() {
                Ok(_) => break,
                Err(pending) => request = pending,
            }
            std::thread::sleep(NAP);
        }
    });
    any != 0
}

/// The first count of `sizes` that did not pass in the launch `out`, if any: the first
/// without rank 0's `ran ... at n ranks: ok` line. `None` when every count passed.
pub(crate) fn first_failed(test_name: &str, sizes: &[u32], out: &Outcome) -> Option<u32> {
    let ok = |n: u32| {
        let line = format!(
            "{} `{test_name}` at {}: ok",
            crate::testing::RAN,
            rank_count(n as usize)
        );
        out.lines.iter().any(|l| l.text.trim_end().ends_with(&line))
    };
    sizes.iter().copied().find(|&n| !ok(n))
}

/// The failure of count `n` in a launch of several: as a launch of `n` ranks said it, or,
/// when the launch ended before count `n` started (no rank ever ran it: a launcher that
/// refused its ranks, a binary that died at start), the launch that failed.
pub(crate) fn verdict_at(test_name: &str, n: u32, sizes: &[u32], out: &Outcome) -> String {
    let launched = sizes.iter().copied().max().unwrap_or(n);
    let at = crate::report::rank_count(n as usize);
    if !crate::sizes::started(test_name, n, out) {
        let why = crate::testing::verdict(test_name, launched, out)
            .err()
            .unwrap_or_default();
        let counts: Vec<String> = sizes.iter().map(u32::to_string).collect();
        return format!(
            "`{test_name}` failed at {at}: the launch of {launched} ranks that runs it at \
             {} ranks ended before {at} started\n{why}",
            counts.join(", ")
        );
    }
    match crate::testing::verdict(test_name, n, out) {
        Err(why) => why,
        // Every rank exited 0 and count `n` said nothing: the body returned early.
        Ok(()) => format!(
            "`{test_name}` failed at {at}: no rank ran `{test_name}` at {at} \
             ({:.1} s)\n{}",
            out.wall.as_secs_f64(),
            crate::testing::learner_view(out)
        ),
    }
}

/// True when rank 0 said that count `n` of `test_name` started in the launch `out`.
pub(crate) fn started(test_name: &str, n: u32, out: &Outcome) -> bool {
    let line = format!("{STARTING} `{test_name}` at {}", rank_count(n as usize));
    out.lines.iter().any(|l| l.text.trim_end() == line)
}

/// A count's start as rank 0 says it (the parent reads it; the learner need not).
pub(crate) fn is_start_line(text: &str) -> bool {
    text.starts_with(STARTING)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Line, Stream};
    use std::os::unix::process::ExitStatusExt;

    fn job(code: i32, texts: &[&str]) -> Outcome {
        let lines = texts.iter().map(|t| Line {
            rank: Some(0),
            stream: Stream::Stdout,
            text: t.to_string(),
        });
        Outcome {
            status: Some(std::process::ExitStatus::from_raw(code << 8)),
            timed_out: false,
            lines: lines.collect(),
            wall: Duration::from_secs(1),
        }
    }

    #[test]
    fn the_first_count_without_its_ok_line_is_the_one_that_failed() {
        let out = job(
            1,
            &[
                "[workbook] size `t` at 1 rank",
                "[workbook] ran `t` at 1 rank: ok",
                "[workbook] size `t` at 3 ranks",
                "rank 2: panicked at src/x.rs:3:5: boom",
            ],
        );
        assert_eq!(first_failed("t", &[1, 3, 4], &out), Some(3));
        assert!(started("t", 3, &out) && !started("t", 4, &out));
        let all = job(
            0,
            &[
                "[workbook] ran `t` at 1 rank: ok",
                "[workbook] ran `t` at 3 ranks: ok",
            ],
        );
        assert_eq!(first_failed("t", &[1, 3], &all), None);
        // Another test's line is not this one's.
        assert_eq!(first_failed("u", &[1], &all), Some(1));
    }

    #[test]
    fn the_sizes_travel_with_the_test_they_are_for() {
        let value = env_value("ring::ex3_1", &[1, 2, 8]);
        assert_eq!(value, "ring::ex3_1=1,2,8");
        std::env::set_var(ENV, &value);
        assert_eq!(wanted("ring::ex3_1"), Some(vec![1, 2, 8]));
        assert_eq!(wanted("ring::ex3_2"), None);
        std::env::remove_var(ENV);
    }
}
