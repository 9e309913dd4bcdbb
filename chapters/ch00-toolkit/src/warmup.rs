//! Chapter 0 exercises: your first collective calls.
//!
//! Every rank runs these functions at the same time, each with its own `world.rank()`.
//! Check your work with `make check CH=00`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;

// ANCHOR: block_range
/// The slice of `0..len` that `rank` owns when `len` items are split over `size` ranks
/// in contiguous blocks, as evenly as possible: the first `len % size` ranks get one
/// item more. Blocks are in rank order, disjoint, and cover `0..len`.
///
/// `block_range(10, 4, r)` is `0..3`, `3..6`, `6..8`, `8..10` for r = 0..4.
pub fn block_range(len: usize, size: usize, rank: usize) -> Range<usize> {
    // TODO(ex 0.1): compute the block of `rank` (no MPI needed)
    todo!("ex 0.1: compute the block range of one rank")
}
// ANCHOR_END: block_range

// ANCHOR: gather_to_root
/// Every rank passes its `value`; rank 0 returns `Some(values of ranks 0, 1, ... in
/// order)`, every other rank `None`. Use a gather rooted at rank 0.
pub fn gather_to_root(world: &SimpleCommunicator, value: i64) -> Option<Vec<i64>> {
    // TODO(ex 0.2): gather every rank's value on rank 0
    todo!("ex 0.2: gather every rank's value on rank 0")
}
// ANCHOR_END: gather_to_root

// ANCHOR: global_sum
/// Every rank passes a vector of the same length; every rank returns the element-wise
/// sum of all ranks' vectors. Use an allreduce.
pub fn global_sum(world: &SimpleCommunicator, values: &[i64]) -> Vec<i64> {
    // TODO(ex 0.3): sum the vectors of all ranks, element by element, on every rank
    todo!("ex 0.3: sum the vectors of all ranks with an allreduce")
}
// ANCHOR_END: global_sum
