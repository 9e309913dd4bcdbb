//! Checks of exercises 2.6 (allgather ring), 2.7 (alltoall pairwise) and 2.10 (Bruck's
//! allgather) against MPI_Allgather and MPI_Alltoall at 1, 2, 3, 4, 5, 8 ranks, for
//! i32/i64/f32/f64; ex 2.10 first with each rank's block labelled by its rank, to say
//! which block went where.
//!
//! Run: `make check CH=02` or `cargo test -p ch02-collectives --features solution --test
//! exchange`.

use crate::common::blocks::{blocks_in_place, Allgather};
use crate::common::{cases, lengths, CASES, RANKS};
use ch02::bruck::allgather_bruck;
use ch02::exchange::{allgather_ring, alltoall_pairwise};
use ch02::ops::{Elem, Op};
use ch02::reference;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::mpi_test;

/// Every rank ends with every rank's block, as MPI_Allgather gives it.
fn allgather_equals_mpi<T: Elem>(
    world: &SimpleCommunicator,
    name: &str,
    f: Allgather<T>,
) -> Result<(), String> {
    let rank = world.rank() as usize;
    property(
        world,
        &format!("{name}::<{}> equals MPI_Allgather", T::NAME),
    )
    .cases(CASES)
    .check(cases(world.size(), &[Op::Sum], lengths()), |case| {
        let mine: Vec<T> = case.values(rank);
        let got = f(world, &mine);
        exact(
            "allgather result",
            &got,
            &reference::allgather(world, &mine),
        )
    })
}

// ANCHOR: alltoall_property
/// Every rank's send buffer holds p blocks of n items; the result equals MPI_Alltoall's.
fn alltoall_equals_mpi<T: Elem>(world: &SimpleCommunicator) -> Result<(), String> {
    let (rank, size) = (world.rank() as usize, world.size());
    let blocks = lengths()
        .prop_map(move |n| n.min(600) * size as usize)
        .boxed();
    property(
        world,
        &format!("alltoall_pairwise::<{}> equals MPI_Alltoall", T::NAME),
    )
    .cases(CASES)
    .check(cases(size, &[Op::Sum], blocks), |case| {
        let send: Vec<T> = case.values(rank);
        let got = alltoall_pairwise(world, &send);
        let block = case.len / size as usize;
        let what = format!("alltoall result ({size} blocks of {block})");
        exact(&what, &got, &reference::alltoall(world, &send))
    })
}
// ANCHOR_END: alltoall_property

mpi_test! {
    fn ex2_6_allgather_ring(world at RANKS) for T in [i32, i64, f32, f64] {
        allgather_equals_mpi::<T>(world, "allgather_ring", allgather_ring)
    }

    fn ex2_10_allgather_bruck(world at RANKS) for T in [i32, i64, f32, f64] {
        blocks_in_place(world, allgather_bruck)?;
        allgather_equals_mpi::<T>(world, "allgather_bruck", allgather_bruck)
    }

    fn ex2_7_alltoall_pairwise(world at RANKS) for T in [i32, i64, f32, f64] {
        alltoall_equals_mpi::<T>(world)
    }
}
