//! Chapter 6 exercise 6.3: the distributed sampler.
//!
//! Given the epoch's shuffled order (the same on every rank, `shuffle::shuffled`), each
//! rank takes a disjoint part, all parts the same size. Check with `make check CH=06`
//! (tests/sampler.rs: every sample exactly once per epoch, pad and drop).
#![allow(unused_variables)] // the stubs do not use their arguments yet

use crate::shuffle::Remainder;

// ANCHOR: samples_per_rank
/// How many samples each of `ranks` ranks gets from `len`: rounded up with
/// `Remainder::Pad`, down with `Remainder::Drop`.
pub fn samples_per_rank(len: usize, ranks: usize, remainder: Remainder) -> usize {
    // TODO(ex 6.3): ceil or floor of len / ranks
    todo!("ex 6.3: split the epoch's order over the ranks (strided, pad or drop)")
}
// ANCHOR_END: samples_per_rank

// ANCHOR: rank_indices
/// Rank `rank`'s samples from the epoch's `order`: first make the order a multiple of
/// `ranks` long (pad by repeating its first samples, or drop its last ones), then take
/// every `ranks`-th element starting at position `rank` (strided, as PyTorch does: then
/// step k's batches of all ranks together are positions k*B..(k+1)*B of the order).
pub fn rank_indices(
    order: &[usize],
    ranks: usize,
    rank: usize,
    remainder: Remainder,
) -> Vec<usize> {
    // TODO(ex 6.3): pad or drop to a multiple of ranks, then every ranks-th from rank
    todo!("ex 6.3: split the epoch's order over the ranks (strided, pad or drop)")
}
// ANCHOR_END: rank_indices
