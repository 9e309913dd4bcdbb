//! Chapter 3 exercise 3.5: choose the algorithm from the cost model, as MPI libraries
//! and NCCL do. A pure function: no MPI. Check with `make check CH=03`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::cost::{predict, Algorithm, Costs};

// ANCHOR: choose_algorithm
/// The faster of [`Algorithm::RecursiveDoubling`] and [`Algorithm::SegmentedRing`] for
/// an allreduce of `bytes` bytes over `p` ranks, by the times [`crate::cost::predict`]
/// gives with `model` (one [`crate::cost::CostModel`], or a whole
/// [`crate::cost::Machine`] with a regime per size). On a tie (p = 1, or equal times)
/// recursive doubling: fewer messages.
pub fn choose_algorithm(model: &impl Costs, p: usize, bytes: usize) -> Algorithm {
    // TODO(ex 3.5): compare the two predicted times, return the smaller
    todo!("ex 3.5: choose recursive doubling or the segmented ring by predicted time")
}
// ANCHOR_END: choose_algorithm
