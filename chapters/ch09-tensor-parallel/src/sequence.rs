//! Chapter 9 exercise 9.7 (optional): the MLP with sequence parallelism.
//!
//! Around the tensor-parallel layers, the norms and residuals compute the same thing on
//! every rank, token by token. Sequence parallelism keeps them on this rank's s/t tokens
//! only and splits each allreduce into its two halves: before the column-parallel layer,
//! an allgather of the tokens (`Tp::gather_tokens`) where f was; after the row-parallel
//! layer, a reduce-scatter (`Tp::scatter_tokens_sum`) where g was. Each half's backward is
//! the other half. Same bytes as the allreduce, activations outside the layers / t. Check
//! with `make check CH=09` (tests/sequence.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::linear::column_forward;
use crate::ops::gelu;
use crate::params::BlockParams;
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: sp_mlp_forward
/// The MLP's forward with sequence parallelism, on this rank's shard `p` (its `w1`, `b1`,
/// `w2`, `b2`) from this rank's tokens `x` (`[batch, s/t, hidden]`, tokens
/// `r*s/t..(r+1)*s/t`): `gelu(x W1^T + b1) W2^T + b2` for those tokens, with two cuts on
/// `tape` (`Tape::cut` with `Tp`'s two halves as forward and backward), the bias `b2`
/// added once, after the reduce-scatter.
pub fn sp_mlp_forward<'a>(tape: &mut Tape<'a>, tp: &'a Tp, p: &BlockParams, x: &Tensor) -> Tensor {
    // TODO(ex 9.7): allgather the tokens (backward: reduce-scatter), the two layers, reduce-scatter (backward: allgather), + b2
    todo!("ex 9.7: the MLP with sequence parallelism: allgather and reduce-scatter at the cuts")
}
// ANCHOR_END: sp_mlp_forward
