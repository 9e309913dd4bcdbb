//! Chapter 9 exercise 9.3: the column-parallel and the row-parallel linear layer
//! (solution).

use crate::tape::Tape;
use crate::tp::Tp;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: shards
/// A column-parallel shard: the output features `cols` (w's rows, b's elements).
pub fn column_shard(w: &Tensor, b: &Tensor, cols: Range<usize>) -> (Tensor, Tensor) {
    let (start, len) = (cols.start as i64, cols.len() as i64);
    (w.narrow(0, start, len), b.narrow(0, start, len))
}

/// A row-parallel shard: the input features `rows` (w's columns).
pub fn row_shard(w: &Tensor, rows: Range<usize>) -> Tensor {
    w.narrow(1, rows.start as i64, rows.len() as i64)
}
// ANCHOR_END: shards

// ANCHOR: forwards
/// The column-parallel forward: no communication, this rank's output features.
pub fn column_forward(x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
    x.linear(w, Some(b))
}

/// The row-parallel forward: partial product, summed by g, bias added once after it.
pub fn row_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    x: &Tensor,
    w: &Tensor,
    bias: &Tensor,
) -> Tensor {
    let partial = x.linear::<&Tensor>(w, None);
    tape.g(tp, &partial) + bias
}
// ANCHOR_END: forwards
