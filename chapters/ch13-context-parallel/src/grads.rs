//! Given: the gradients of attention over one block of keys, from the forward pass's
//! log-sum-exp (FlashAttention's backward, one block pair at a time).
//!
//! For queries `q` (this rank's rows) and one key/value block `k`, `v`, with the scores
//! `S = q kᵀ / √d` (masked as in the forward pass) and the forward's `lse` of each query row
//! over *all* keys, the softmax weights of this block are `P = exp(S − lse)`: no
//! normalisation is needed, the lse already holds the whole row's. With the upstream
//! gradient `dO` and, per query row, `D = Σ dO ∘ O` (the forward's output `O`):
//!
//! ```text
//! dV = Pᵀ dO        dP = dO Vᵀ        dS = P ∘ (dP − D)
//! dQ = dS K / √d    dK = dSᵀ Q / √d
//! ```
//!
//! dQ sums over the key blocks; dK and dV over the query blocks, which live on every rank:
//! ring attention's backward (ex 13.5) carries them round the ring. Nothing to run here:
//! the exercise and the tests use it.

use crate::partial::Mask;
use tch::{Kind, Tensor};

/// The gradients of a block pair: this rank's queries against one key/value block.
#[derive(Debug)]
pub struct BlockGrads {
    /// `[batch, heads, queries, head_dim]`: this pair's part of dQ.
    pub dq: Tensor,
    /// `[batch, heads, keys, head_dim]`: this pair's part of dK.
    pub dk: Tensor,
    /// `[batch, heads, keys, head_dim]`: this pair's part of dV.
    pub dv: Tensor,
}

/// A rank's gradients in ring attention's backward pass (ex 13.5): of its queries, keys
/// and values, each the shape of its block.
#[derive(Debug)]
pub struct Grads {
    pub dq: Tensor,
    pub dk: Tensor,
    pub dv: Tensor,
}

/// `D = Σ dO ∘ O` per query row (`[batch, heads, queries]`): what every block pair of those
/// rows needs, computed once.
pub fn row_dot(dout: &Tensor, out: &Tensor) -> Tensor {
    (dout * out).sum_dim_intlist([-1i64].as_slice(), false, Kind::Double)
}

/// The gradients of attention of `q` over the block `k`, `v` (masked by `mask`), given the
/// forward's `lse` of `q`'s rows over all keys, the upstream `dout` and `D` ([`row_dot`]).
pub fn block_grads(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dout: &Tensor,
    lse: &Tensor,
    d_rows: &Tensor,
    mask: Mask,
) -> BlockGrads {
    let scale = 1.0 / (*q.size().last().expect("a head dimension") as f64).sqrt();
    let mut s = q.matmul(&k.transpose(-2, -1)) * scale;
    if mask == Mask::Diagonal {
        let (nq, nk) = (q.size()[2], k.size()[2]);
        let future = Tensor::ones([nq, nk], (Kind::Bool, q.device())).triu(1);
        s = s.masked_fill(&future, f64::NEG_INFINITY);
    }
    let p = (s - lse.unsqueeze(-1)).exp();
    let dv = p.transpose(-2, -1).matmul(dout);
    let ds = &p * (dout.matmul(&v.transpose(-2, -1)) - d_rows.unsqueeze(-1));
    BlockGrads {
        dq: ds.matmul(k) * scale,
        dk: ds.transpose(-2, -1).matmul(q) * scale,
        dv,
    }
}
