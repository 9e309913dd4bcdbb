//! Chapter 9 exercise 9.3: the column-parallel and the row-parallel linear layer.
//!
//! A linear layer computes `y = x W^T + b` with LibTorch's weight `W` of shape `[out,
//! in]` (the paper writes `Y = XA`: its columns of A are our rows of W). Column-parallel:
//! rank r holds the output features `cols` (W's rows `cols`, b's elements `cols`) and
//! computes those output features from the whole input, with no communication.
//! Row-parallel: rank r holds the input features `rows` (W's columns `rows`), multiplies
//! its slice of the input and gets a partial sum of every output; g sums the partials,
//! and the bias is added once, after the sum. Check with `make check CH=09`
//! (tests/linear.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::tape::Tape;
use crate::tp::Tp;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: shards
/// A column-parallel shard of the layer `(w, b)` (`w`: `[out, in]`, `b`: `[out]`): the
/// output features `cols`, i.e. `w`'s rows `cols` and `b`'s elements `cols`.
pub fn column_shard(w: &Tensor, b: &Tensor, cols: Range<usize>) -> (Tensor, Tensor) {
    // TODO(ex 9.3): narrow w along dimension 0 and b along its only dimension
    todo!("ex 9.3: the column- and row-parallel shards and their forwards")
}

/// A row-parallel shard of the weight `w` (`[out, in]`): the input features `rows`, i.e.
/// `w`'s columns `rows` (the bias is not sharded: every rank holds all of it).
pub fn row_shard(w: &Tensor, rows: Range<usize>) -> Tensor {
    // TODO(ex 9.3): narrow w along dimension 1
    todo!("ex 9.3: the column- and row-parallel shards and their forwards")
}
// ANCHOR_END: shards

// ANCHOR: forwards
/// The column-parallel forward: this rank's output features of `x W^T + b`, from the
/// whole input `x` (`[..., in]`) and its shard `(w, b)`; `[..., cols]`.
pub fn column_forward(x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
    // TODO(ex 9.3): a plain linear layer on the shard
    todo!("ex 9.3: the column- and row-parallel shards and their forwards")
}

/// The row-parallel forward: `x` is this rank's input features (`[..., rows]`, a
/// column-parallel layer's output), `w` its shard; the partial product summed over the
/// group with `tape.g`, then the whole `bias` added once; `[..., out]`, on every rank.
pub fn row_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    x: &Tensor,
    w: &Tensor,
    bias: &Tensor,
) -> Tensor {
    // TODO(ex 9.3): the partial product without bias, through g, then the bias
    todo!("ex 9.3: the column- and row-parallel shards and their forwards")
}
// ANCHOR_END: forwards
