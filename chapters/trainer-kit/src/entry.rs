//! A trainer's `main`, after its flags were parsed (before MPI starts, so a bad flag costs
//! no communication): start MPI, run the job, end with one exit status.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::OnceLock;
use std::time::Duration;

/// `--collective-timeout`'s seconds, set by [`crate::cli::from_command_line`].
static TIMEOUT: OnceLock<f64> = OnceLock::new();

/// Notes the trainer's `--collective-timeout` (seconds), armed once MPI has started.
pub fn collective_timeout(seconds: Option<f64>) {
    if let Some(s) = seconds {
        let _ = TIMEOUT.set(s);
    }
}

/// Who prints a failed run's one-line reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// Reasons every rank meets alike (a bad setting, a refused checkpoint): every rank
    /// prints the same line, which the workbook's launcher shows once (under a bare
    /// mpirun, once per rank); a rank that fails alone is not silent.
    Alike,
    /// Every rank, with its number: reasons that may differ between ranks (a stage's error).
    EveryRank,
}

/// Starts MPI, arms `--collective-timeout` if given, runs `job` on the world and exits: 0
/// when it returns `Ok`, 1 after printing its `Err` as `program: reason` (or `program:
/// rank R: reason`, per `report`) on every rank that meets it. MPI is finalised before
/// the exit.
pub fn run_and_exit<F>(program: &str, report: Report, job: F) -> !
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    let universe = toolkit::init();
    if let Some(&s) = TIMEOUT.get() {
        // The harness's watchdog: one MPI call waiting `s` seconds ends the job, each
        // waiting rank printing the call and its last collectives (the flight recorder).
        let setting = format!("--collective-timeout {s}");
        toolkit::watchdog::guard_calls(program, Duration::from_secs_f64(s), setting);
    }
    let world = universe.world();
    let code = match job(&world) {
        Ok(()) => 0,
        Err(why) => {
            // One write per line: the ranks' lines reach mpirun's stderr whole, never
            // spliced into each other (`eprintln!` may write its pieces one by one).
            let line = match report {
                Report::Alike => format!("{program}: {why}\n"),
                Report::EveryRank => format!("{program}: rank {}: {why}\n", world.rank()),
            };
            use std::io::Write;
            let _ = std::io::stderr().write_all(line.as_bytes());
            1
        }
    };
    drop(world);
    drop(universe);
    std::process::exit(code)
}
