//! Checks of exercise 3.6 (Rabenseifner's allreduce), at 1, 2, 3, 4, 5 and 8 ranks in one
//! launch: first each rank's input counted once in every element of a sum (input
//! `16^rank`: a digit of the sum per rank), then the property of every allreduce: equal
//! to MPI_Allreduce and the same bits on every rank, for i32, i64, f32, f64 and sum, max,
//! min, AbsMax.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test main trees::`.

use crate::common::counts::{each_input_once, HALVING_CAUSES};
use crate::common::{allreduce_property, lengths, RANKS};
use ch03::rabenseifner::allreduce_rabenseifner;
use mpi::traits::*;
use toolkit::mpi_test;

mpi_test! {
    fn ex3_6_allreduce_rabenseifner(world at RANKS) for T in [i32, i64, f32, f64] {
        each_input_once(world, "allreduce_rabenseifner", allreduce_rabenseifner::<i64>, HALVING_CAUSES)?;
        allreduce_property::<T>(world, "allreduce_rabenseifner", allreduce_rabenseifner, lengths(world.size()))
    }
}
