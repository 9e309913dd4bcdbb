//! Chapter 8 exercise 8.4: resharding a checkpoint, the index arithmetic. A checkpoint
//! saved by N ranks holds, for saved rank q, the real elements of its shard,
//! `q*S..min((q+1)*S, P)` of the flat buffer (S = ceil(P/N), the padding stripped). A
//! rank of a new layout at M ranks (shard length S' = ceil(P/M)) builds its shard from the
//! saved slices that overlap its own real elements, and fills the rest (its padding) with
//! zeros. Check with `make check CH=08` (tests/reshard.rs).

#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::shards::{saved_slice, Layout, SliceCopy};

// ANCHOR: sources
/// The copies that build `new`'s shard from a checkpoint of `params` parameters saved by
/// `saved_ranks` ranks, in flat order: together their `dst` cover `new.real()` (shifted to
/// the shard's start) once, with no gap; what they do not cover is padding.
pub fn sources(params: usize, saved_ranks: usize, new: &Layout) -> Vec<SliceCopy> {
    // TODO(ex 8.4): for each saved rank, the overlap of its slice with new.real(),
    // numbered from the slice's start (src) and from the new shard's start (dst)
    todo!("ex 8.4: which saved slices make up a new rank's shard")
}
// ANCHOR_END: sources
