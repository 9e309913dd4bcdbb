//! A trainer's `main`, after its flags were parsed (before MPI starts, so a bad flag costs
//! no communication): start MPI, run the job, end with one exit status.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Who prints a failed run's one-line reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// Rank 0 only: reasons every rank meets alike (a bad setting, a missing file).
    RankZero,
    /// Every rank, with its number: reasons that may differ between ranks (a stage's error).
    EveryRank,
}

/// Starts MPI, runs `job` on the world and exits: 0 when it returns `Ok`, 1 after printing
/// its `Err` as `program: reason` (or `program: rank R: reason`, per `report`). MPI is
/// finalised before the exit.
pub fn run_and_exit<F>(program: &str, report: Report, job: F) -> !
where
    F: FnOnce(&SimpleCommunicator) -> Result<(), String>,
{
    let universe = toolkit::init();
    let world = universe.world();
    let code = match job(&world) {
        Ok(()) => 0,
        Err(why) => {
            // One write per line: the ranks' lines reach mpirun's stderr whole, never
            // spliced into each other (`eprintln!` may write its pieces one by one).
            let line = match report {
                Report::RankZero if world.rank() != 0 => None,
                Report::RankZero => Some(format!("{program}: {why}\n")),
                Report::EveryRank => Some(format!("{program}: rank {}: {why}\n", world.rank())),
            };
            if let Some(line) = line {
                use std::io::Write;
                let _ = std::io::stderr().write_all(line.as_bytes());
            }
            1
        }
    };
    drop(world);
    drop(universe);
    std::process::exit(code)
}
