//! Saying what a long test run waits for, while it waits.
//!
//! `make check` runs a chapter's tests with `cargo test`, whose output it reads only at
//! the end. A learner looking at a silent terminal for minutes cannot tell a build from a
//! hang. So the check first says how long a hang may last ([`deadlines`]), then, on a
//! terminal, prints one line every [`EVERY`] while the run goes on: what it is doing
//! (building, or how many tests have finished) and for how long.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often a line is printed while a run goes on.
pub const EVERY: Duration = Duration::from_secs(20);

/// `a test that hangs is named within 20 s (WORKBOOK_CASE_TIMEOUT); ...`: the deadlines in
/// force, in one sentence.
pub fn deadlines() -> String {
    let case = workbook_settings::settings::case_timeout().as_secs();
    let job = workbook_settings::settings::job_timeout().as_secs();
    format!(
        "a test that hangs is named (rank, MPI call) within {case} s (WORKBOOK_CASE_TIMEOUT); \
         a job still running after {job} s is ended (WORKBOOK_JOB_TIMEOUT)"
    )
}

/// Runs `cmd` to the end like [`Command::output`]; meanwhile, when standard error is a
/// terminal, prints `  ... what: 3 tests finished, 40 s so far` every [`EVERY`].
pub fn output_telling_the_wait(cmd: &mut Command, what: &str) -> std::io::Result<Output> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let finished = Arc::new(AtomicUsize::new(0));
    let testing = Arc::new(AtomicBool::new(false));
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let out_reader = {
        let (finished, testing) = (finished.clone(), testing.clone());
        std::thread::spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                testing.store(true, Ordering::Relaxed);
                let t = line.trim_end();
                if t.starts_with("test ") && (t.ends_with(" ... ok") || t.ends_with("FAILED")) {
                    finished.fetch_add(1, Ordering::Relaxed);
                }
                text.push_str(&line);
                text.push('\n');
            }
            text.into_bytes()
        })
    };
    let err_reader = std::thread::spawn(move || {
        let mut bytes = vec![];
        let _ = BufReader::new(stderr).read_to_end(&mut bytes);
        bytes
    });
    let tell = std::io::stderr().is_terminal();
    let (start, mut next) = (Instant::now(), EVERY);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(200));
        if tell && start.elapsed() >= next {
            next += EVERY;
            let secs = start.elapsed().as_secs();
            let doing = match (
                testing.load(Ordering::Relaxed),
                finished.load(Ordering::Relaxed),
            ) {
                (false, _) => "building".to_string(),
                (true, 1) => "1 test finished".to_string(),
                (true, n) => format!("{n} tests finished"),
            };
            eprintln!("  ... {what}: {doing}, {secs} s so far");
        }
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_the_programs_whole_output() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo 'test a ... ok'; echo oops >&2; exit 3"]);
        let out = output_telling_the_wait(&mut cmd, "x").unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "test a ... ok\n");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "oops\n");
        assert_eq!(out.status.code(), Some(3));
        assert!(deadlines().contains("WORKBOOK_CASE_TIMEOUT"));
    }
}
