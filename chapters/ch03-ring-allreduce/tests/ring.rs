//! Checks of exercises 3.1 (ring reduce-scatter) and 3.2 (ring allgather) against
//! MPI_Allreduce, at 1, 2, 3, 4, 5, 8 ranks, for i32, i64, f32, f64 and sum, max, min
//! and the user-defined AbsMax; lengths 0, < p, not divisible by p, and a few thousand.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test main ring::`. A failure names the rank, the chunk, the op and the first wrong element.

use crate::common::{allgather_property, lengths, reduce_scatter_property, RANKS};
use ch03::ring::{allgather_ring, reduce_scatter_ring};
use mpi::traits::*;
use toolkit::mpi_test;

mpi_test! {
    fn ex3_1_reduce_scatter_ring(world at RANKS) for T in [i32, i64, f32, f64] {
        reduce_scatter_property::<T>(world, reduce_scatter_ring, lengths(world.size()))
    }

    fn ex3_2_allgather_ring(world at RANKS) for T in [i32, i64, f32, f64] {
        allgather_property::<T>(world, allgather_ring, lengths(world.size()))
    }
}
