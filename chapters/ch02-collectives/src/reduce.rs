//! Chapter 2 exercises 2.3 and 2.9: reduce along a tree, and an inclusive scan.
//!
//! Every rank passes a vector of the same length and the same [`Op`]. The operation may
//! be non-commutative ([`Op::First`]): combine values in rank order, lower ranks on the
//! left (`Op::fold_right_into` / `Op::fold_left_into` say which side is which). Check
//! with `make check CH=02`; the tests compare with MPI_Reduce and MPI_Scan.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ops::{Elem, Op};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_binomial
/// Reduce along a binomial tree: `root` returns `Some(x_0 ∘ x_1 ∘ ... ∘ x_{p-1})`
/// (element-wise, in rank order), every other rank `None`. ceil(log2 p) rounds.
///
/// To keep rank order with any root, reduce towards rank 0: in round k (mask = 2^k), a
/// rank with bit k set sends what it holds to `rank - mask` and is done; a rank without it
/// receives from `rank + mask` (if that rank exists) and appends it on the right. Then
/// rank 0 sends the result to `root` (unless it is the root).
pub fn reduce_binomial<T: Elem>(
    world: &SimpleCommunicator,
    root: i32,
    xs: &[T],
    op: Op,
) -> Option<Vec<T>> {
    // TODO(ex 2.3): combine up a binomial tree to rank 0, then hand the result to root
    todo!("ex 2.3: reduce along a binomial tree, keeping rank order")
}
// ANCHOR_END: reduce_binomial

// ANCHOR: scan_inclusive
/// Inclusive scan by recursive doubling: rank r returns `x_0 ∘ x_1 ∘ ... ∘ x_r`.
///
/// For d = 1, 2, 4, ... < p: send what you hold to `rank + d` (if it exists), receive
/// from `rank - d` (if it exists) and put what you received on the LEFT of what you hold.
/// After the round with distance d, rank r holds `x_{r-2d+1} ∘ ... ∘ x_r`.
pub fn scan_inclusive<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    // TODO(ex 2.9): log2 p rounds of send to rank + d, receive from rank - d
    todo!("ex 2.9: inclusive scan by recursive doubling")
}
// ANCHOR_END: scan_inclusive
