//! Planted faults and other checks of the harness's own reports: a test launched at one
//! rank count with a fault planted (`WORKBOOK_FAULT`), asserted to end on its own with
//! the message a learner should see; and the labs' one-line flag refusals.
//!
//! A planted fault is the subject of its launch: it runs alone, at the count it names,
//! never with other counts ([`crate::sizes`]).

use crate::launch::Outcome;
use crate::testing::{launch, learner_view};
use std::time::Duration;

/// The seed [`launch_self`] gives a planted fault unless one is set: a planted fault's
/// report (its shrunk case above all) must be the same on every run, or the test that
/// asserts it would be flaky. Exercise checks ([`crate::testing::at_ranks`]) keep a fresh seed per run.
pub const PLANTED_SEED: &str = "20261129";

/// Launches this test binary under mpirun with `n` ranks, running only `test_name`
/// (which should call [`crate::testing::run_body`] or [`at_ranks`]). Extra environment in `env`. The
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
         solution --test {} {}\n`{test_name}` failed at {}\n{seen}",
        file.unwrap_or_else(|| "<file>".into()),
        crate::testing::libtest_name(test_name),
        crate::report::rank_count(n as usize)
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

/// Keeps what the harness printed for a planted fault in `target/workbook/planted/`, for
/// the book (`make outputs CH=00` copies it), headed by the command that reproduces it.
pub fn keep_for_the_book(test_file: &str, test: &str, text: &str) {
    let shown = format!("$ cargo test -p toolkit --test {test_file} {test}\n{text}");
    crate::report::write_file(&format!("planted/{test}.txt"), &shown)
        .expect("write target/workbook/planted");
}

/// A planted mistake's check result, judged: `Ok` when the check failed with a message that
/// contains `cause` (printed, for `--nocapture`), an `Err` that says what went wrong
/// otherwise (the check passed the mistake, or its message no longer names the cause).
/// For the chapters' `planted_mistakes` tests, on every rank alike.
pub fn named(result: Result<(), String>, cause: &str) -> Result<(), String> {
    match result {
        Ok(()) => Err(format!("the check passed a planted mistake ({cause})")),
        Err(why) if why.contains(cause) => {
            println!("{why}");
            Ok(())
        }
        Err(why) => Err(format!("the message changed: {why}")),
    }
}
