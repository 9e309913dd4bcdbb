//! Check of ex 16.2 (persistent requests): the solver with your plan and exchange equals
//! the serial solver bit for bit on random grids (fixed and periodic) at 1 to 8 ranks.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::{exchange_property, RANKS};
use ch16::exchanges::{Exchange, Parts};
use toolkit::mpi_test;

// ANCHOR: ex16_2
mpi_test! {
    fn ex16_2_persistent_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Persistent, Parts::yours())
    }
}
// ANCHOR_END: ex16_2
