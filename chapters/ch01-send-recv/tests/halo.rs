//! Checks of ex 1.3 (the non-blocking halo exchange) at 1, 2, 3, 4, 5 and 8 ranks, for
//! i32, i64, f32 and f64 edges of random width (0 included, some up to 1 MiB).
//! 2 ranks is the interesting count: both neighbours are the same rank, only the tags
//! tell the two messages apart.
//!
//! Run: `make check CH=01` (your code) or `cargo test -p ch01-send-recv --features solution`.

use crate::common::halo_property;
use ch01::halo::halo_exchange;
use toolkit::mpi_test;

// ANCHOR: ex1_3
mpi_test! {
    fn ex1_3_halo_exchange(world at &[1, 2, 3, 4, 5, 8]) for T in [i32, i64, f32, f64] {
        halo_property::<T>(world, halo_exchange)
    }
}
// ANCHOR_END: ex1_3
