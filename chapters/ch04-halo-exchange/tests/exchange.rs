//! Checks of ex 4.3 (blocking exchange) and ex 4.4 (sendrecv exchange): the solver with
//! your exchange, and the tests' reference parts for the rest, equals the serial solver
//! bit for bit, on random grids (fixed and periodic, edges up to 35 KiB) at 1 to 8 ranks.
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use crate::common::{reference_parts, solver_property, RANKS};
use ch04::solver::{Parts, Variant};
use toolkit::mpi_test;

// ANCHOR: ex4_3
mpi_test! {
    fn ex4_3_blocking_matches_serial(world at RANKS) {
        let parts = Parts { blocking: ch04::exchange::exchange_blocking, ..reference_parts() };
        solver_property(world, Variant::Blocking, parts)
    }
}
// ANCHOR_END: ex4_3

mpi_test! {
    fn ex4_4_sendrecv_matches_serial(world at RANKS) {
        let parts = Parts { sendrecv: ch04::exchange::exchange_sendrecv, ..reference_parts() };
        solver_property(world, Variant::Sendrecv, parts)
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): rank 1 sends
/// its boundary rows with the wrong tag. The watchdog names each rank's blocked call within the
/// deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex4_3_a_halo_sent_with_the_wrong_tag_is_named() {
    toolkit::testing::assert_fault_named(
        "ex4_3_blocking_matches_serial",
        2,
        "MPI_Send@1:tag+1",
        &["DEADLOCK?", "blocked in MPI_Recv(source=1", "hint:"],
    );
}
