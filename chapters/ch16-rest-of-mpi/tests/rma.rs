//! Checks of ex 16.4 (one-sided RMA): the solver with your exchange between fences, then
//! with post-start-complete-wait, equals the serial solver bit for bit on random grids
//! (fixed and periodic) at 1 to 8 ranks; after one exchange every ghost holds its
//! neighbour's label.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::{exchange_property, RANKS};
use ch16::exchanges::{Exchange, Parts};
use toolkit::mpi_test;

// ANCHOR: ex16_4
mpi_test! {
    fn ex16_4_fence_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Fence, Parts::yours())
    }
}

mpi_test! {
    fn ex16_4_pscw_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Pscw, Parts::yours())
    }
}
// ANCHOR_END: ex16_4
