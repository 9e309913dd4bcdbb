//! Chapter 8 exercise 8.1: the shard layout of a flat buffer.
//!
//! The P parameters of a model, flattened in one buffer, are padded with zeros to N * S
//! elements, S = P / N rounded up, and rank r owns elements `r*S .. (r+1)*S` of it: the
//! layout MPI_Reduce_scatter_block and MPI_Allgather use (every block the same length,
//! block r for rank r). Check with `make check CH=08` (tests/layout.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::shards::Piece;
use std::ops::Range;

// ANCHOR: shard_len
/// Elements per shard when `params` elements are sharded over `ranks` ranks: `params /
/// ranks` rounded up (the buffer is then padded to `ranks` times this). `ranks >= 1`.
pub fn shard_len(params: usize, ranks: usize) -> usize {
    // TODO(ex 8.1): P / N rounded up
    todo!("ex 8.1: the shard length, rank r's range and the tensors it cuts")
}
// ANCHOR_END: shard_len

// ANCHOR: shard_range
/// The elements of the padded flat buffer that `rank` owns: its block of
/// [`shard_len`]`(params, ranks)` elements, block `rank` in rank order. The last ranks'
/// blocks may reach into the padding (or lie in it entirely).
pub fn shard_range(params: usize, ranks: usize, rank: usize) -> Range<usize> {
    // TODO(ex 8.1): block `rank` of length shard_len
    todo!("ex 8.1: the shard length, rank r's range and the tensors it cuts")
}
// ANCHOR_END: shard_range

// ANCHOR: pieces
/// The parameter tensors that the elements `range` of the flat buffer cut through, in
/// order: for each, its index in `lens` (the tensors' lengths, in flat order) and the
/// part of it inside `range` (in the tensor's own element numbers). Tensors that `range`
/// does not touch are left out, and so is the padding after the last tensor. Empty
/// tensors are never cut.
pub fn pieces(lens: &[usize], range: Range<usize>) -> Vec<Piece> {
    // TODO(ex 8.1): walk the tensors' offsets, keep each overlap with `range`
    todo!("ex 8.1: the shard length, rank r's range and the tensors it cuts")
}
// ANCHOR_END: pieces
