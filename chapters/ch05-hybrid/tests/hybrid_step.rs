//! Check of ex 5.2 (the threaded update): the hybrid solver with your update equals
//! chapter 4's serial solver bit for bit, on random grids (fixed and periodic) at 1 to 4
//! ranks x 1 to 4 threads per rank.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

mod common;
use ch05::hybrid_solver::{Parts, Variant};
use common::{reference_parts, solver_property, RANKS};
use toolkit::mpi_test;

mpi_test! {
    fn ex5_2_threaded_matches_serial(world at RANKS) {
        let parts = Parts { update: ch05::hybrid_step::update_threaded, ..reference_parts() };
        solver_property(world, Variant::Threaded, parts)
    }
}
