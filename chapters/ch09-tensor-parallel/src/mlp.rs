//! Chapter 9 exercise 9.4: the tensor-parallel MLP block.
//!
//! Megatron's MLP: f, the column-parallel first layer, the GeLU on this rank's features
//! (no communication: it applies to each feature on its own), the row-parallel second
//! layer (its g inside). One allreduce forward (g's), one backward (f's): the tape's
//! backward runs them when the block's backward reaches each cut. Check with `make check
//! CH=09` (tests/mlp.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::linear::{column_forward, row_forward};
use crate::ops::gelu;
use crate::params::BlockParams;
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: mlp_forward
/// The MLP's forward on this rank's shard `p` (its `w1`, `b1`, `w2`, `b2`) from the whole
/// input `x` (`[..., hidden]`): `gelu(x W1^T + b1) W2^T + b2`, on every rank, with its two
/// cuts on `tape` (f before the first layer, g in the second).
pub fn mlp_forward<'a>(tape: &mut Tape<'a>, tp: &'a Tp, p: &BlockParams, x: &Tensor) -> Tensor {
    // TODO(ex 9.4): f, column-parallel w1, gelu, row-parallel w2
    todo!("ex 9.4: the MLP's forward with its cuts f and g")
}
// ANCHOR_END: mlp_forward
