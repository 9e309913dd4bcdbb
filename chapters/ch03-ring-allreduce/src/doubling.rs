//! Chapter 3 exercise 3.4: recursive doubling, for any number of ranks.
//!
//! log2 p rounds; in each, every rank exchanges its WHOLE vector with the rank whose
//! number differs in one bit, and both reduce. Few messages (good for small vectors),
//! but n bytes each round (bad for large ones). Check with `make check CH=03`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ops::{Elem, Op};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_recursive_doubling
/// Recursive-doubling allreduce: every rank returns `x_0 ∘ ... ∘ x_{p-1}`.
///
/// When p is not a power of two, let q be the largest power of two at most p and
/// `extra = p - q`. First fold: among ranks `0 .. 2·extra`, each even rank sends its
/// vector to the odd rank above it and sits out. The q remaining ranks get new numbers
/// (odd rank r < 2·extra: r / 2; rank r >= 2·extra: r - extra) and run the rounds
/// (partner: new number XOR mask, mask = 1, 2, 4, ... < q; map it back to a real rank).
/// Last, each odd rank below 2·extra sends the result to the even rank below it.
pub fn allreduce_recursive_doubling<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
) -> Vec<T> {
    // TODO(ex 3.4): fold the extra ranks in, log2 q rounds of exchange + reduce, fold out
    todo!("ex 3.4: recursive-doubling allreduce for any rank count")
}
// ANCHOR_END: allreduce_recursive_doubling
