//! Checks of ex 4.3 (blocking exchange) and ex 4.4 (sendrecv exchange): the solver with
//! your exchange, and the tests' reference parts for the rest, equals the serial solver
//! bit for bit, on random grids (fixed and periodic, edges up to 35 KiB) at 1 to 8 ranks.
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

mod common;
use ch04::solver::{Parts, Variant};
use common::{reference_parts, solver_property, RANKS};
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
