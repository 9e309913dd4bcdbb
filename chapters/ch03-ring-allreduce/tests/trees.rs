//! Checks of exercises 3.6 (Rabenseifner's allreduce) and 3.7 (the double binary tree), at
//! 1, 2, 3, 4, 5 and 8 ranks in one launch each: first each rank's input counted once in
//! every element of a sum (input `16^rank`: a digit of the sum per rank), for ex 3.7 then
//! the bytes each rank sent each neighbour (half t along tree t only), then the property
//! of every allreduce: equal to MPI_Allreduce and the same bits on every rank, for i32,
//! i64, f32, f64 and sum, max, min, AbsMax.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test main trees::`.

use crate::common::counts::{each_input_once, HALVING_CAUSES, TREE_CAUSES};
use crate::common::traffic::each_half_through_its_tree;
use crate::common::{allreduce_property, lengths, RANKS};
use ch03::double_tree::allreduce_double_tree;
use ch03::ops::{Elem, Op};
use ch03::rabenseifner::allreduce_rabenseifner;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::mpi_test;

mpi_test! {
    fn ex3_6_allreduce_rabenseifner(world at RANKS) for T in [i32, i64, f32, f64] {
        each_input_once(world, "allreduce_rabenseifner", allreduce_rabenseifner::<i64>, HALVING_CAUSES)?;
        allreduce_property::<T>(world, "allreduce_rabenseifner", allreduce_rabenseifner, lengths(world.size()))
    }
}

/// Ex 3.7 in segments of 3 elements: several per half in the short vectors of the
/// counts and traffic checks.
fn in_threes<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    allreduce_double_tree(world, xs, op, 3)
}

/// Ex 3.7 in two segments per half, whatever the length: pipelined, yet few messages per
/// case (segments of 3 at 6000 elements made thousands: minutes under MPICH at 8 ranks).
fn in_twos<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    allreduce_double_tree(world, xs, op, xs.len().div_ceil(4).max(1))
}

mpi_test! {
    fn ex3_7_allreduce_double_tree(world at RANKS) for T in [i32, i64, f32, f64] {
        each_input_once(world, "allreduce_double_tree", in_threes::<i64>, TREE_CAUSES)?;
        each_half_through_its_tree(world, "allreduce_double_tree", in_threes::<i64>)?;
        allreduce_property::<T>(world, "allreduce_double_tree", in_twos, lengths(world.size()))
    }
}
