//! Chapter 9 exercise 9.1: which part of a layer rank r of t owns.
//!
//! A column-parallel layer's output columns, a row-parallel layer's input rows and
//! attention's heads are split into t equal blocks, block r for rank r, and a split that
//! is not even is refused (every rank must do the same work, and a head is never cut). A
//! vocabulary is split as it comes: the first `V % t` ranks own one id more than the
//! others. Check with `make check CH=09` (tests/shards.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet

use std::ops::Range;

// ANCHOR: even_range
/// Block `rank` of `total` things (columns, rows, heads) split evenly over `t` ranks:
/// `total / t` of them, at `rank * total / t`. `Err` when `t` does not divide `total`, in
/// one line: ``tensor-parallel size {t} does not divide the {total} {what}``. `t >= 1`,
/// `rank < t`.
pub fn even_range(total: usize, t: usize, rank: usize, what: &str) -> Result<Range<usize>, String> {
    // TODO(ex 9.1): refuse t not dividing total; else block `rank` of total / t
    todo!("ex 9.1: the even blocks of columns or heads, and the vocabulary's shards")
}
// ANCHOR_END: even_range

// ANCHOR: vocab_range
/// The ids of a vocabulary of `vocab` ids that `rank` of `t` owns: consecutive, in rank
/// order, the first `vocab % t` ranks one id more than the others (`vocab / t + 1`
/// against `vocab / t`). `t >= 1`, `rank < t`.
pub fn vocab_range(vocab: usize, t: usize, rank: usize) -> Range<usize> {
    // TODO(ex 9.1): the first vocab % t ranks own vocab / t + 1 ids, the others vocab / t
    todo!("ex 9.1: the even blocks of columns or heads, and the vocabulary's shards")
}
// ANCHOR_END: vocab_range
