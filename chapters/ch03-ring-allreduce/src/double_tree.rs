//! Chapter 3 exercise 3.7: the double binary tree allreduce. The vector is cut in two
//! halves; half 0 is reduced up tree 0 and broadcast back down it, half 1 the same in
//! tree 1 ([`crate::binary_tree`]). A rank that is a leaf of one tree is an inner node of
//! the other, so every rank receives from two children in one tree only, and every rank's
//! link carries the same bytes. Cut into segments, the halves flow through the trees
//! like water through pipes: `depth + segments` steps instead of `depth · segments`.
//! Check with `make check CH=03`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::binary_tree::double_binary_tree;
use crate::chunk_range;
use crate::ops::{Elem, Op};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_double_tree
/// The double binary tree allreduce of `xs` in segments of `segment` elements
/// (`segment >= 1`): every rank returns `x_0 ∘ ... ∘ x_{p-1}` element-wise.
///
/// `double_binary_tree(p, rank)` gives this rank's node in each tree. Half `t` is
/// `chunk_range(n, 2, t)`; segment `j` of it its elements `j·segment ..` (at most
/// `segment`; skip an empty one), `j` in `0 .. ceil(len of half 0 / segment)`.
/// 1. Up: for each segment `j`, for each tree `t` (in that order, on every rank): receive
///    the segment of half `t` from each child of tree `t` and reduce it in, then send it
///    to the parent of tree `t`, if any.
/// 2. Down: for each `j`, for each `t`: receive the segment from the parent of tree `t`
///    (a copy, not a reduction), then send it to each child of tree `t`.
///
/// Blocking `send` and `receive_into` are safe here: every rank walks the same sequence
/// of (phase, segment, tree), and within one the messages follow a tree.
pub fn allreduce_double_tree<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
    segment: usize,
) -> Vec<T> {
    // TODO(ex 3.7): half t up tree t, segment by segment, then back down
    todo!("ex 3.7: double binary tree allreduce: each half up and down its own tree")
}
// ANCHOR_END: allreduce_double_tree
