//! Exercise 5.1: refuse to run code that needs a higher thread level than MPI granted.
//!
//! Check: `make check CH=05` (test `ex5_1_levels`: every pair of needed and granted
//! levels, 16 in all, without MPI).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::threading::level_name;
use mpi::environment::Threading;

// ANCHOR: require
/// `Ok(())` when code that needs the thread level `needed` may run under `granted`
/// (levels are ordered: Single < Funneled < Serialized < Multiple, and `Threading`
/// compares that way). Otherwise an error of one line that names both levels as the
/// standard spells them ([`level_name`]: `MPI_THREAD_MULTIPLE`) and the fix, starting
/// `Fix:` (request the level with `mpi::initialize_with_threading`, or use an MPI library
/// built with thread support, or make only the main thread call MPI).
pub fn require(needed: Threading, granted: Threading) -> Result<(), String> {
    // TODO(ex 5.1): compare the levels; name both and the fix when granted is lower
    todo!("ex 5.1: compare the needed and the granted thread level")
}
// ANCHOR_END: require
