//! Checks of exercises 3.1 (ring reduce-scatter) and 3.2 (ring allgather) against
//! MPI_Allreduce, at 1, 2, 3, 4, 5, 8 ranks, for i32, i64, f32, f64 and sum, max, min
//! and the user-defined AbsMax; lengths 0, < p, not divisible by p, and a few thousand.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test ring`. A failure names the rank, the chunk, the op and the first wrong element.

mod common;

use ch03::ring::{allgather_ring, reduce_scatter_ring};
use common::{allgather_property, lengths, reduce_scatter_property, RANKS};
use mpi::traits::*;
use toolkit::testing::at_ranks;

#[test]
fn ex3_1_reduce_scatter_ring() {
    at_ranks("ex3_1_reduce_scatter_ring", RANKS, |world| {
        let lens = || lengths(world.size());
        reduce_scatter_property::<i32>(world, reduce_scatter_ring, lens())?;
        reduce_scatter_property::<i64>(world, reduce_scatter_ring, lens())?;
        reduce_scatter_property::<f32>(world, reduce_scatter_ring, lens())?;
        reduce_scatter_property::<f64>(world, reduce_scatter_ring, lens())
    });
}

#[test]
fn ex3_2_allgather_ring() {
    at_ranks("ex3_2_allgather_ring", RANKS, |world| {
        let lens = || lengths(world.size());
        allgather_property::<i32>(world, allgather_ring, lens())?;
        allgather_property::<i64>(world, allgather_ring, lens())?;
        allgather_property::<f32>(world, allgather_ring, lens())?;
        allgather_property::<f64>(world, allgather_ring, lens())
    });
}
