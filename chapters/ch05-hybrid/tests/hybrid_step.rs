//! Check of ex 5.2 (the threaded update): the hybrid solver with your update equals
//! chapter 4's serial solver bit for bit, on random grids (fixed and periodic) at 1 to 4
//! ranks x 1 to 4 threads per rank.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use crate::common::{reference_parts, solver_property, RANKS};
use ch05::hybrid_solver::{Parts, Variant};
use toolkit::mpi_test;

mpi_test! {
    fn ex5_2_threaded_matches_serial(world at RANKS) {
        let parts = Parts { update: ch05::hybrid_step::update_threaded, ..reference_parts() };
        solver_property(world, Variant::Threaded, parts)
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): rank 1 skips
/// the halo exchange in its step (a given collective, `MPI_Neighbor_alltoallv`), as a step that
/// calls it only on some condition would. The watchdog names each rank's blocked call within the
/// deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex5_2_a_rank_that_skips_the_exchange_is_named() {
    toolkit::testing::assert_fault_named(
        "ex5_2_threaded_matches_serial",
        2,
        "MPI_Neighbor_alltoallv@1:skip",
        &[
            "rank 0: DEADLOCK?",
            "blocked in MPI_Neighbor_alltoallv",
            "hint:",
        ],
    );
}
