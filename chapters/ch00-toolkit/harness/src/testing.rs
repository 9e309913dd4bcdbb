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
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    at_ranks_with(test_name, ranks, Threading::Funneled, body)
}

/// [`at_ranks`] for a body that needs the thread level `needed` (e.g. `Multiple` when
/// its threads call MPI): every rank refuses to run it if the library grants less.
pub fn at_ranks_with<F>(test_name: &str, ranks: &[u32], needed: Threading, body: F)
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    if launch::under_mpirun() {
        run_body_with(test_name, needed, body);
    }
    if let Some(hung) = hung_sibling(test_name) {
        fail(&format!(
            "`{test_name}` not run: `{hung}`, a test of the same exercise, hung; \
             fix that one first (each hang costs a deadline)"
        ));
    }
    for &n in ranks {
        let out = launch(test_name, n, &[]);
        if let Err(why) = verdict(test_name, n, &out) {
            if out.wall >= crate::watchdog::case_limit() && why.contains("DEADLOCK?") {
                HUNG.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(test_name.to_string());
            }
            fail(&why);
        }
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

/// The seed [`launch_self`] gives a planted fault unless one is set: a planted fault's
/// report (its shrunk case above all) must be the same on every run, or the test that
/// asserts it would be flaky. Exercise checks ([`at_ranks`]) keep a fresh seed per run.
pub const PLANTED_SEED: &str = "20261129";

/// Launches this test binary under mpirun with `n` ranks, running only `test_name`
/// (which should call [`run_body`] or [`at_ranks`]). Extra environment in `env`. The
/// lockstep seed is [`PLANTED_SEED`] unless `env` or the environment sets `WORKBOOK_SEED`.
pub fn launch_self(test_name: &str, n: u32, env: &[(&str, &str)]) -> Outcome {
    let seeded = std::env::var_os("WORKBOOK_SEED").is_some()
        || env.iter().any(|(k, _)| *k == "WORKBOOK_SEED");
    let mut env = env.to_vec();
    if !seeded {
        env.push(("WORKBOOK_SEED", PLANTED_SEED));
    }
    launch(test_name, n, &env)
}

/// Launches this test binary under mpirun with `n` ranks, running only `test_name`.
fn launch(test_name: &str, n: u32, env: &[(&str, &str)]) -> Outcome {
    let exe = std::env::current_exe().expect("cannot find the test binary");
    let args = [
        test_name,
        "--exact",
        "--nocapture",
        "--include-ignored",
        "--test-threads=1",
    ];
    let mut job = Job::new(exe.to_string_lossy()).ranks(n).args(args);
    job = job.timeout(workbook_settings::settings::job_timeout());
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
    eprintln!("[workbook] `{test_name}` at {n} ranks passed, then a rank failed on its way out: run once more");
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
    // The whole body is guarded, not only its property cases: a hang anywhere in it is
    // named with its rank and call within the case deadline.
    crate::watchdog::guard_body(test_name);
    let mine = body(&world);
    crate::watchdog::body_finished();
    let verdict = crate::lockstep::agree_on(&world, mine);
    if world.rank() == 0 {
        match &verdict {
            // A property's report is agreed by every rank: who said it adds nothing.
            Err((_, why)) if why.starts_with("property `") => crate::spmd::say(why),
            Err((rank, why)) => crate::spmd::say(&format!("rank {rank} says: {why}")),
            Ok(()) => {}
        }
        let word = if verdict.is_ok() { "ok" } else { "FAILED" };
        println!("{RAN} `{test_name}` at {} ranks: {word}", world.size());
    }
    drop(world);
    drop(universe);
    std::process::exit(i32::from(verdict.is_err()));
}

/// A planted fault in a learner's own test: runs the test `test_name` of this test binary
/// at `n` ranks with `WORKBOOK_FAULT=fault` (see [`crate::faults`]) and a 3 s deadline
/// (`WORKBOOK_CASE_TIMEOUT=3`; the learner's check waits the default). Asserts that the
/// job ended on its own, named, well before the job deadline, and returns what the
/// learner sees of it. For the chapters' `planted_*` tests (built with the solutions).
/// The report is also kept for the book (see [`keep_for_the_book`]) as
/// `target/workbook/planted/<test_name>-with-fault.txt`, headed by the command that shows
/// it.
pub fn with_fault(test_name: &str, n: u32, fault: &str) -> String {
    let env = [("WORKBOOK_FAULT", fault), ("WORKBOOK_CASE_TIMEOUT", "3")];
    let out = launch_self(test_name, n, &env);
    assert_failed_within(&out, Duration::from_secs(60));
    let seen = learner_view(&out);
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| "<package>".into());
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().map(|s| s.to_string_lossy().into_owned());
    let file = stem
        .as_deref()
        .and_then(|s| s.rsplit_once('-'))
        .map(|(f, _)| f.to_string());
    let shown = format!(
        "$ WORKBOOK_FAULT={fault} WORKBOOK_CASE_TIMEOUT=3 cargo test -p {package} --features \
         solution --test {} {test_name}\n`{test_name}` failed at {n} ranks\n{seen}",
        file.unwrap_or_else(|| "<file>".into())
    );
    crate::report::write_file(&format!("planted/{test_name}-with-fault.txt"), &shown)
        .expect("write target/workbook/planted");
    seen
}

/// [`with_fault`], then asserts that what the learner sees holds each of `says`.
pub fn assert_fault_named(test_name: &str, n: u32, fault: &str, says: &[&str]) {
    let seen = with_fault(test_name, n, fault);
    for said in says {
        assert!(seen.contains(said), "expected {said:?} in:\n{seen}");
    }
}

/// For the labs' flag parsers: each `(flags, says)` (the flags split at spaces) is
/// refused with one line that starts with `says`.
pub fn refused_in_one_line<T: std::fmt::Debug>(
    parse: fn(&[String]) -> Result<T, String>,
    bad: &[(&str, &str)],
) {
    for (flags, says) in bad {
        let args: Vec<String> = flags.split(' ').map(String::from).collect();
        let err = parse(&args).expect_err(flags);
        let one_line = err.starts_with(says) && !err.contains('\n');
        assert!(one_line, "{flags}: {err}");
    }
}

/// For planted faults: asserts that the job failed on its own (not killed at the job
/// deadline) and within `limit`; returns its output as text for further assertions.
pub fn assert_failed_within(out: &Outcome, limit: Duration) -> String {
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(out.wall < limit, "took {:?}:\n{text}", out.wall);
    text
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
        "`{test_name}` failed at {n} ranks: {why} ({:.1} s)\n{}",
        out.wall.as_secs_f64(),
        learner_view(out)
    ))
}

/// Keeps what the harness printed for a planted fault in `target/workbook/planted/`, for
/// the book (`make outputs CH=00` copies it), headed by the command that reproduces it.
pub fn keep_for_the_book(test_file: &str, test: &str, text: &str) {
    let shown = format!("$ cargo test -p toolkit --test {test_file} {test}\n{text}");
    crate::report::write_file(&format!("planted/{test}.txt"), &shown)
        .expect("write target/workbook/planted");
}

/// What a learner sees of a failed job: see [`crate::learner_view`].
pub use crate::learner_view::learner_view;
