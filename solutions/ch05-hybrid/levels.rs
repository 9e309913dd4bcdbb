//! Exercise 5.1: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

use crate::threading::level_name;
use mpi::environment::Threading;

// ANCHOR: require
/// `Ok(())` when code that needs `needed` may run under `granted`; else one line naming
/// both levels and the fix.
pub fn require(needed: Threading, granted: Threading) -> Result<(), String> {
    if granted >= needed {
        return Ok(());
    }
    let fix = if granted == Threading::Single {
        "request it with mpi::initialize_with_threading, from an MPI built with thread support"
    } else {
        "request it with mpi::initialize_with_threading, or make only the main thread call MPI"
    };
    Err(format!(
        "this code needs {} but MPI granted only {}. Fix: {fix}",
        level_name(needed),
        level_name(granted)
    ))
}
// ANCHOR_END: require
