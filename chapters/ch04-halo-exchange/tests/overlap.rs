//! Checks of ex 4.5 (the overlapped step): the solver with your step, and the tests'
//! reference parts for the rest, equals the serial solver bit for bit, on random grids
//! (fixed and periodic) at 1 to 8 ranks.
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use crate::common::{reference_parts, solver_property, RANKS};
use ch04::solver::{Parts, Variant};
use toolkit::mpi_test;

mpi_test! {
    fn ex4_5_overlapped_matches_serial(world at RANKS) {
        let parts = Parts { overlapped: ch04::overlap::step_overlapped, ..reference_parts() };
        solver_property(world, Variant::Overlapped, parts)
    }
}
