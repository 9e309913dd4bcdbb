//! Checks of exercises 2.3 (reduce) and 2.9 (scan) against MPI_Reduce and MPI_Scan, at
//! 1, 2, 3, 4, 5, 8 ranks, for i32, i64, f32, f64 and every `Op` (sum, product, max,
//! min, and the user-defined AbsMax and non-commutative First).
//!
//! Run: `make check CH=02` or `cargo test -p ch02-collectives --features solution --test
//! reduce`. A failure names the rank, the root, the op and the first wrong element.

use crate::common::{cases, lengths, CASES, RANKS};
use ch02::ops::{Elem, Op};
use ch02::reduce::{reduce_binomial, scan_inclusive};
use ch02::reference;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::compare::reduction;
use toolkit::lockstep::property;
use toolkit::mpi_test;

// ANCHOR: reduce_property
/// The root's result equals MPI_Reduce's; every other rank returns `None`.
fn reduce_equals_mpi<T: Elem>(world: &SimpleCommunicator) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    property(
        world,
        &format!("reduce_binomial::<{}> equals MPI_Reduce", T::NAME),
    )
    .cases(CASES)
    .check(cases(size, &Op::ALL, lengths()), |case| {
        let xs: Vec<T> = case.values(rank as usize);
        let got = reduce_binomial(world, case.root, &xs, case.op);
        let want = reference::reduce(world, case.root, &xs, case.op);
        let what = format!("reduce to root {} with {:?}", case.root, case.op);
        match (got, want) {
            (Some(got), Some(want)) => {
                let abs = case.abs_sums::<T>(0..size as usize);
                reduction(&what, case.op, &got, &want, &abs, size as usize)
            }
            (None, Some(_)) => Err(format!("{what}: the root returned None")),
            (Some(_), None) => Err(format!(
                "{what}: rank {rank} is not the root but returned Some"
            )),
            (None, None) => Ok(()),
        }
    })
}
// ANCHOR_END: reduce_property

/// Rank r's result equals MPI_Scan's: x_0 ∘ ... ∘ x_r.
fn scan_equals_mpi<T: Elem>(world: &SimpleCommunicator) -> Result<(), String> {
    let rank = world.rank() as usize;
    property(
        world,
        &format!("scan_inclusive::<{}> equals MPI_Scan", T::NAME),
    )
    .cases(CASES)
    .check(cases(world.size(), &Op::ALL, lengths()), |case| {
        let xs: Vec<T> = case.values(rank);
        let got = scan_inclusive(world, &xs, case.op);
        let want = reference::scan(world, &xs, case.op);
        let abs = case.abs_sums::<T>(0..rank + 1);
        reduction(
            &format!("scan with {:?}", case.op),
            case.op,
            &got,
            &want,
            &abs,
            rank + 1,
        )
    })
}

mpi_test! {
    fn ex2_3_reduce_binomial(world at RANKS) for T in [i32, i64, f32, f64] {
        reduce_equals_mpi::<T>(world)
    }

    fn ex2_9_scan_inclusive(world at RANKS) for T in [i32, i64, f32, f64] {
        scan_equals_mpi::<T>(world)
    }
}
