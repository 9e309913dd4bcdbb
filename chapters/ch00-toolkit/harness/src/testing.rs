//! MPI tests that are ordinary `#[test]` functions.
//!
//! A chapter test calls [`at_ranks`]. Under `cargo test` (no mpirun) it launches its own
//! test binary under mpirun once per rank count, asking libtest to run just this test;
//! inside mpirun, on every rank, the same call runs the body with MPI. So one function
//! holds both the check and the launch, and each exercise's test stays independent.

use crate::launch::{self, Job, Outcome};
use mpi::environment::Threading;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

/// The line rank 0 prints when a body finished; proves the launch ran the right test.
pub(crate) const RAN: &str = "[workbook] ran";

/// Run `body` on every rank of a job for each size in `ranks`.
///
/// `test_name` must be the test function's name as libtest knows it (for a test at the
/// top of `tests/x.rs`, just the function name). MPI starts with `MPI_THREAD_FUNNELED`.
/// On failure the test fails with every rank's output and the rank count that failed.
// ANCHOR: at_ranks
pub fn at_ranks<F>(test_name: &str, ranks: &[u32], body: F)
where
    F: Fn(&SimpleCommunicator) -> Result<(), String>,
{
    at_ranks_with(test_name, ranks, Threading::Funneled, body)
}

/// [`at_ranks`] for a body that needs the thread level `needed` (e.g. `Multiple` when
/// its threads call MPI): every rank refuses to run it if the library grants less.
///
/// Several rank counts run in one launch at the largest ([`crate::sizes`]).
pub fn at_ranks_with<F>(test_name: &str, ranks: &[u32], needed: Threading, body: F)
where
    F: Fn(&SimpleCommunicator) -> Result<(), String>,
{
    if launch::under_mpirun() {
        match crate::sizes::wanted(test_name) {
            Some(sizes) => crate::sizes::run_each(test_name, &sizes, needed, body),
            None => run_body_with(test_name, needed, body),
        }
    }
    if let Some(hung) = hung_sibling(test_name) {
        fail(&format!(
            "`{test_name}` not run: `{hung}`, a test of the same exercise, hung; \
             fix that one first (each hang costs a deadline)"
        ));
    }
    let (failure, wall) = match ranks {
        [] => (None, Duration::ZERO),
        [n] => {
            let out = launch(test_name, *n, &[]);
            (verdict(test_name, *n, &out).err(), out.wall)
        }
        sizes => {
            let out = launch_sizes(test_name, sizes);
            let failure = match crate::sizes::first_failed(test_name, sizes, &out) {
                None if out.success() => None,
                None => verdict(test_name, sizes[sizes.len() - 1], &out).err(),
                Some(n) => Some(crate::sizes::verdict_at(test_name, n, sizes, &out)),
            };
            (failure, out.wall)
        }
    };
    if let Some(why) = failure {
        if wall >= crate::watchdog::case_limit() && why.contains("DEADLOCK?") {
            HUNG.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(test_name.to_string());
        }
        fail(&why);
    }
}

/// [`at_ranks`] for a check that times real messages (a slowed link found in a measured
/// matrix): a job whose verdict is a plain failure (not a hang, not a panic) is run again,
/// up to `attempts` times, and passes if one run passes. A machine busy beside the test
/// only slows a time, and under MPICH two ranks that spin can share one core for a whole
/// job; a wrong answer fails every attempt, and the last one's report is shown.
pub fn at_ranks_timed<F>(test_name: &str, ranks: &[u32], attempts: u32, body: F)
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    if launch::under_mpirun() {
        run_body(test_name, body);
    }
    for &n in ranks {
        let mut failed = None;
        for _ in 0..attempts.max(1) {
            let out = launch(test_name, n, &[]);
            match verdict(test_name, n, &out) {
                Ok(()) => {
                    failed = None;
                    break;
                }
                Err(why) if out.timed_out || why.contains("DEADLOCK?") => fail(&why),
                Err(why) => failed = Some(why),
            }
        }
        if let Some(why) = failed {
            fail(&format!("{why}\n  (failed in each of {attempts} runs)"));
        }
    }
}

/// The tests of this binary that hung (their deadline passed), by name.
static HUNG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A test of the same exercise (`ex7_5_...` for `ex7_5_...`) that hung in this binary.
fn hung_sibling(test_name: &str) -> Option<String> {
    let exercise = |t: &str| {
        let mut parts = t.splitn(3, '_');
        let (a, b) = (parts.next()?, parts.next()?);
        (a.starts_with("ex") && parts.next().is_some()).then(|| format!("{a}_{b}_"))
    };
    let mine = exercise(test_name)?;
    let hung = HUNG.lock().unwrap_or_else(|e| e.into_inner());
    hung.iter().find(|t| t.starts_with(&mine)).cloned()
}
// ANCHOR_END: at_ranks

/// Fails the calling test with `why` and nothing else: no "panicked at testing.rs" line,
/// which would point the learner at the harness instead of the report.
pub fn fail(why: &str) -> ! {
    println!("{why}");
    std::panic::resume_unwind(Box::new(why.to_string()))
}

/// Launches this test binary once at the largest of `sizes`, its ranks running `test_name`
/// at each count ([`crate::sizes`]); the job's deadline is one job's per count.
fn launch_sizes(test_name: &str, sizes: &[u32]) -> Outcome {
    let n = sizes.iter().copied().max().unwrap_or(1);
    let value = crate::sizes::env_value(test_name, sizes);
    let env = [(crate::sizes::ENV, value.as_str())];
    let timeout = workbook_settings::settings::job_timeout() * sizes.len() as u32;
    launch_job(test_name, n, &env, sizes, timeout)
}

/// Launches this test binary under mpirun with `n` ranks, running only `test_name`.
pub(crate) fn launch(test_name: &str, n: u32, env: &[(&str, &str)]) -> Outcome {
    let timeout = workbook_settings::settings::job_timeout();
    launch_job(test_name, n, env, &[n], timeout)
}

/// libtest's full name of the test `test_name` of the running test's module: libtest
/// runs each test on a thread named after it (`ring::ex3_1_...` for a test in the module
/// `ring` of `tests/main.rs`), and a test launches itself, or a planted fault of its own
/// file, by its bare function name.
pub fn libtest_name(test_name: &str) -> String {
    if test_name.contains("::") {
        return test_name.to_string();
    }
    let thread = std::thread::current();
    match thread.name().and_then(|full| full.rsplit_once("::")) {
        Some((module, _)) => format!("{module}::{test_name}"),
        None => test_name.to_string(),
    }
}

fn launch_job(
    test_name: &str,
    n: u32,
    env: &[(&str, &str)],
    sizes: &[u32],
    timeout: Duration,
) -> Outcome {
    let exe = std::env::current_exe().expect("cannot find the test binary");
    let full = libtest_name(test_name);
    let args = [
        full.as_str(),
        "--exact",
        "--nocapture",
        "--include-ignored",
        "--test-threads=1",
    ];
    let mut job = Job::new(exe.to_string_lossy()).ranks(n).args(args);
    job = job.timeout(timeout).sizes(sizes);
    for (k, v) in env {
        job = job.env(k, *v);
    }
    let _cores = crate::cores::take(n);
    let out = job.run().unwrap_or_else(|e| panic!("{e}"));
    if !crate::learner_view::passed_then_failed(&out) {
        return out;
    }
    // Every rank agreed that the test passed, and a rank failed on its way out: on a
    // machine loaded far past its cores, Open MPI 4.1's launcher has reported a rank that
    // had finalized as "exiting improperly" (PID 0). Once more; a second time is reported.
    eprintln!(
        "[workbook] `{test_name}` at {} passed, then a rank failed on its way out: run once more",
        crate::report::rank_count(n as usize)
    );
    job.run().unwrap_or_else(|e| panic!("{e}"))
}

/// On a rank: start MPI, run the body, agree on the verdict, exit with it (0 or 1).
pub fn run_body<F>(test_name: &str, body: F) -> !
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    run_body_with(test_name, Threading::Funneled, body)
}

/// [`run_body`] asking MPI for the thread level `needed`.
pub fn run_body_with<F>(test_name: &str, needed: Threading, body: F) -> !
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    // libtest has printed `test NAME ... ` without a newline: end that line first.
    println!();
    let universe = crate::spmd::start_rank_with(needed);
    let world = universe.world();
    let verdict = run_once(test_name, &world, body);
    drop(world);
    drop(universe);
    std::process::exit(i32::from(verdict.is_err()));
}

/// The body on `comm`, guarded by the watchdog, its verdict agreed by every rank of
/// `comm`; rank 0 says it (`[workbook] ran `test` at n ranks: ok`).
pub(crate) fn run_once<F>(
    test_name: &str,
    comm: &SimpleCommunicator,
    body: F,
) -> Result<(), (i32, String)>
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    // The whole body is guarded, not only its property cases: a hang anywhere in it is
    // named with its rank and call within the case deadline.
    crate::watchdog::guard_body(test_name);
    let mine = body(comm);
    crate::watchdog::body_finished(mine.as_ref().err().map(String::as_str));
    let verdict = crate::lockstep::agree_on(comm, mine);
    crate::watchdog::unguard_body();
    if comm.rank() == 0 {
        match &verdict {
            // A property's report is agreed by every rank: who said it adds nothing; a
            // message the body already agreed on (`lockstep::agree`) names its rank.
            Err((_, why)) if why.starts_with("property `") || names_its_rank(why) => {
                crate::spmd::say(why)
            }
            Err((rank, why)) => crate::spmd::say(&format!("rank {rank} says: {why}")),
            Ok(()) => {}
        }
        let word = if verdict.is_ok() { "ok" } else { "FAILED" };
        println!(
            "{RAN} `{test_name}` at {}: {word}",
            crate::report::rank_count(comm.size() as usize)
        );
    }
    verdict
}

/// `rank R says: ...`: a verdict already agreed on, with the rank that gave it.
fn names_its_rank(why: &str) -> bool {
    why.strip_prefix("rank ")
        .and_then(|rest| rest.split_once(" says: "))
        .is_some_and(|(rank, _)| rank.parse::<u32>().is_ok())
}

/// Ok if the job passed and really ran `test_name`; else a message a learner can act on.
pub fn verdict(test_name: &str, n: u32, out: &Outcome) -> Result<(), String> {
    let ran = out
        .lines
        .iter()
        .any(|l| l.text.contains(&format!("{RAN} `{test_name}`")));
    if out.success() && ran {
        return Ok(());
    }
    let why = if out.timed_out {
        "the whole job ran past its deadline and was killed".to_string()
    } else if out.success() {
        format!("no rank ran `{test_name}`: is the name given to at_ranks the test's name?")
    } else {
        match out.status.and_then(|s| s.code()) {
            Some(code) => format!("the job ended with exit status {code}"),
            None => "the job was ended by a signal".to_string(),
        }
    };
    Err(format!(
        "`{test_name}` failed at {}: {why} ({:.1} s)\n{}",
        crate::report::rank_count(n as usize),
        out.wall.as_secs_f64(),
        learner_view(out)
    ))
}

/// The planted faults' helpers (see [`crate::planted`]).
pub use crate::planted::{
    assert_failed_within, assert_fault_named, keep_for_the_book, launch_self, refused_in_one_line,
    with_fault, PLANTED_SEED,
};

/// What a learner sees of a failed job: see [`crate::learner_view`].
pub use crate::learner_view::learner_view;
