//! Checks of exercises 2.4 (scatter) and 2.5 (gather) against MPI_Scatter(v) and
//! MPI_Gather(v) at 1, 2, 3, 4, 5, 8 ranks: equal counts, unequal counts (zeros
//! included), any root, i32/i64/f32/f64.
//!
//! Run: `make check CH=02` or `cargo test -p ch02-collectives --features solution --test
//! scatter_gather`.

use crate::common::{counts, value, CASES, RANKS};
use ch02::ops::{Elem, Op};
use ch02::scatter_gather::{gatherv, scatterv};
use ch02::{displacements, reference};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::mpi_test;

/// A root, a count per rank, and the data of all blocks.
fn varcount_cases(size: i32) -> impl Strategy<Value = (i32, Vec<usize>, Vec<i32>)> {
    (0..size, counts(size)).prop_flat_map(|(root, counts)| {
        let total: usize = counts.iter().sum();
        (
            Just(root),
            Just(counts),
            prop::collection::vec(-1000i32..=1000, total),
        )
    })
}

fn to<T: Elem>(raw: &[i32]) -> Vec<T> {
    raw.iter().map(|&r| value(Op::Sum, r)).collect()
}

// ANCHOR: scatter_property
/// Every rank's block equals what MPI_Scatter(v) delivers.
fn scatter_equals_mpi<T: Elem>(world: &SimpleCommunicator) -> Result<(), String> {
    let rank = world.rank();
    property(
        world,
        &format!("scatterv::<{}> equals MPI_Scatterv", T::NAME),
    )
    .cases(CASES)
    .check(varcount_cases(world.size()), |(root, counts, raw)| {
        let all: Vec<T> = to(raw);
        let data = (rank == *root).then_some(&all[..]);
        let got = scatterv(world, *root, data, counts);
        let want = reference::scatterv(world, *root, data, counts);
        exact(
            &format!("my block of a scatter from root {root}"),
            &got,
            &want,
        )
    })
}
// ANCHOR_END: scatter_property

/// The root's result equals MPI_Gather(v)'s; every other rank returns `None`.
fn gather_equals_mpi<T: Elem>(world: &SimpleCommunicator) -> Result<(), String> {
    let rank = world.rank();
    property(world, &format!("gatherv::<{}> equals MPI_Gatherv", T::NAME))
        .cases(CASES)
        .check(varcount_cases(world.size()), |(root, counts, raw)| {
            let start = displacements(counts)[rank as usize];
            let mine: Vec<T> = to(&raw[start..start + counts[rank as usize]]);
            let got = gatherv(world, *root, &mine, counts);
            let want = reference::gatherv(world, *root, &mine, counts);
            let what = format!("gather to root {root}");
            match (got, want) {
                (Some(got), Some(want)) => exact(&what, &got, &want),
                (None, Some(_)) => Err(format!("{what}: the root returned None")),
                (Some(_), None) => Err(format!(
                    "{what}: rank {rank} is not the root but returned Some"
                )),
                (None, None) => Ok(()),
            }
        })
}

mpi_test! {
    fn ex2_4_scatterv(world at RANKS) for T in [i32, i64, f32, f64] {
        scatter_equals_mpi::<T>(world)
    }

    fn ex2_5_gatherv(world at RANKS) for T in [i32, i64, f32, f64] {
        gather_equals_mpi::<T>(world)
    }
}
