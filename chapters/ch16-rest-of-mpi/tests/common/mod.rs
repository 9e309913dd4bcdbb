//! What the chapter's tests share: chapter 4's random heat problems and its comparison
//! with the serial solver, and the property "this exchange's solver equals the serial
//! one bit for bit".
#![allow(dead_code)] // each test file uses a part

pub mod column;
pub mod ghosts;
/// Chapter 4's test helpers: the random cases and the cell-by-cell report.
#[path = "../../../ch04-halo-exchange/tests/common/mod.rs"]
pub mod heat;

use ch16::exchanges::{solve, Exchange, Parts};
pub use heat::{cases, Case};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::lockstep::property;

/// Rank counts of the solver checks: 1 to 8 (one launch, a communicator per count).
pub const RANKS: &[u32] = heat::RANKS;

/// Cases per property and launch.
pub const CASES: u32 = 30;

/// After one exchange every ghost holds the neighbour's cell it should, and after
/// `case.steps` steps with `exchange` built from `parts` this rank's block equals the
/// serial solver's bit for bit (or the grid was refused rightly).
pub fn matches_serial(
    world: &SimpleCommunicator,
    case: &Case,
    exchange: Exchange,
    parts: &Parts,
) -> Result<(), String> {
    let (p, size) = (&case.problem, world.size());
    let solved = match solve(world, p, case.steps, exchange, parts) {
        Ok(solved) => solved,
        Err(why) => return heat::refused_rightly(&why, p, size),
    };
    let b = &solved.block;
    ghosts::ghosts_after_one_exchange(b, p, exchange, parts, world.rank())?;
    let (rows, cols) = (b.rows.clone(), b.cols.clone());
    heat::differs_from_serial(world.rank(), case, rows, cols, &solved.field, false)
}

/// The property of ex 16.1-16.3: `exchange` with `parts` equals the serial solver.
pub fn exchange_property(
    world: &SimpleCommunicator,
    exchange: Exchange,
    parts: Parts,
) -> Result<(), String> {
    let name = format!("the {exchange:?} exchange's solver equals the serial solver bit for bit");
    property(world, &name).cases(CASES).check(cases(), |case| {
        matches_serial(world, case, exchange, &parts)
    })
}
