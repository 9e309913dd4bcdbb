//! Chapter 9 exercise 9.5: self-attention split by heads.
//!
//! Each rank holds some of the heads: their features of Q, K and V (column-parallel, one
//! f before all three) and the matching input features of the output projection
//! (row-parallel, its g inside). Heads never mix, so attention (`tape.attend`, which is
//! `ops::attend` here) runs on this rank's heads alone. One allreduce forward, one
//! backward, as in the MLP. Check with `make check CH=09` (tests/attention.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::linear::{column_forward, row_forward};
use crate::params::{BlockConfig, BlockParams};
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: attention_forward
/// Causal self-attention on this rank's heads (its shard `p`: `wq`, `bq`, `wk`, `bk`,
/// `wv`, `bv`, `wo`, `bo`) from the whole input `x` (`[batch, seq, hidden]`), then the
/// output projection; `[batch, seq, hidden]` on every rank, with its cuts on `tape`.
pub fn attention_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &BlockParams,
    cfg: &BlockConfig,
    x: &Tensor,
) -> Tensor {
    // TODO(ex 9.5): one f, three column-parallel projections, tape.attend, row-parallel output
    todo!("ex 9.5: attention on this rank's heads, with its cuts f and g")
}
// ANCHOR_END: attention_forward
