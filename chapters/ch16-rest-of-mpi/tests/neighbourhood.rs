//! Check of ex 16.3 (the neighbourhood collective): the solver with your exchange equals
//! the serial solver bit for bit on random grids (fixed and periodic: axes of one and two
//! ranks included, where both neighbours along an axis are one rank) at 1 to 8 ranks.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::{exchange_property, RANKS};
use ch16::exchanges::{Exchange, Parts};
use toolkit::mpi_test;

// ANCHOR: ex16_3
mpi_test! {
    fn ex16_3_neighbourhood_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Neighbourhood, Parts::yours())
    }
}
// ANCHOR_END: ex16_3
