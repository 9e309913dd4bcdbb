//! Check of ex 5.3 (the overlapped hybrid step): the hybrid solver with your step equals
//! chapter 4's serial solver bit for bit, on random grids at 1 to 4 ranks x 1 to 4
//! threads per rank. The given exchange panics if a worker thread calls it.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use crate::common::{reference_parts, solver_property, RANKS};
use ch05::hybrid_solver::{Parts, Variant};
use toolkit::mpi_test;

mpi_test! {
    fn ex5_3_overlapped_matches_serial(world at RANKS) {
        let parts = Parts {
            overlapped: ch05::overlap_threads::step_overlapped,
            ..reference_parts()
        };
        solver_property(world, Variant::Overlapped, parts)
    }
}
