//! Chapter 10 exercise 10.6: a desync check before each collective: does every rank call
//! the same one?
//!
//! A rank that calls another collective than the others (a broadcast where they
//! allreduce, another root, another size, or one collective ahead because it skipped
//! one) does not fail: it hangs, or worse, its call meets theirs. The check runs before
//! each collective: every rank's [`Fingerprint`] of the call is allgathered and compared,
//! and a mismatch is named before the job hangs, as PyTorch's
//! `TORCH_DISTRIBUTED_DEBUG=DETAIL` does. The fingerprint, its integers and the verdict's
//! text are given in `fingerprint.rs`. Check with `make check CH=10`.
#![allow(unused_variables)] // the stubs do not use their arguments yet

pub use crate::fingerprint::{CallKind, Fingerprint, Mismatch, WORDS};
use mpi::traits::*;

// ANCHOR: odd_ranks
/// `all[r]` is rank `r`'s fingerprint of the next collective. `None` when they all agree
/// (no ranks, or one, included); else the [`Mismatch`]: the fingerprint most ranks have
/// (of a tie, the one of the lowest rank among them), the ranks that have it, and every
/// other rank with its own, all in rank order.
pub fn odd_ranks(all: &[Fingerprint]) -> Option<Mismatch> {
    // TODO(ex 10.6): count the ranks of each distinct fingerprint; the most common (ties: the lowest rank's) is expected, the others are odd
    todo!("ex 10.6: which ranks' fingerprints differ from the one most ranks have")
}
// ANCHOR_END: odd_ranks

// ANCHOR: check_collective
/// Called by every rank of `comm` before a collective, with its own fingerprint of it:
/// gathers every rank's fingerprint on every rank (one allgather of [`WORDS`] integers
/// per rank) and returns the verdict of [`odd_ranks`], the same on every rank.
pub fn check_collective<C: Communicator>(comm: &C, mine: &Fingerprint) -> Result<(), Mismatch> {
    // TODO(ex 10.6): allgather mine.to_words() from every rank, read each rank's WORDS back with Fingerprint::from_words, then odd_ranks
    todo!("ex 10.6: allgather every rank's fingerprint and compare them")
}
// ANCHOR_END: check_collective
