//! Chapter 2 exercises 2.4 and 2.5: scatter and gather, with a count per rank.
//!
//! `counts[r]` is how many items rank r owns; the blocks lie in rank order, rank r's
//! starting at `displacements(counts)[r]`. Every rank passes the same `counts` (MPI only
//! needs them at the root; we pass them everywhere to keep the signatures simple). Equal
//! counts are the plain MPI_Scatter / MPI_Gather; unequal ones are the "v" (varcount)
//! forms. Check with `make check CH=02`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::displacements;
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: scatterv
/// Scatter: `root` passes `Some(all)` (`counts.iter().sum()` items), the other ranks
/// `None`; every rank returns its own block, `counts[rank]` items. The root sends each
/// other rank its block and copies its own.
pub fn scatterv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    all: Option<&[T]>,
    counts: &[usize],
) -> Vec<T> {
    // TODO(ex 2.4): root sends block r to rank r; every other rank receives its block
    todo!("ex 2.4: scatter the root's blocks, counts[r] items to rank r")
}
// ANCHOR_END: scatterv

// ANCHOR: gatherv
/// Gather: every rank passes `mine` (`counts[rank]` items); `root` returns `Some(all
/// blocks in rank order)`, every other rank `None`. The root receives each block
/// straight into its place in the result.
pub fn gatherv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    mine: &[T],
    counts: &[usize],
) -> Option<Vec<T>> {
    // TODO(ex 2.5): every rank sends its block to root; root receives block r from rank r
    todo!("ex 2.5: gather every rank's block on the root, in rank order")
}
// ANCHOR_END: gatherv
