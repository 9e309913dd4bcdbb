//! Given: attention over a part of the keys, and the one-process reference.
//!
//! Softmax attention of queries `q` against keys `k` and values `v` (each
//! `[batch, heads, tokens, head_dim]`) is, per query row, `softmax(q kᵀ / √d) v`. Over a
//! part of the keys the result is a [`Partial`]: the output normalised over those keys,
//! and the log of the sum of their exponentiated scores (the log-sum-exp, `lse`), which is
//! what another part's result needs to be merged with it exactly (ex 13.1). Nothing to run
//! here: the exercises, the lab and the tests use it.

use tch::{Kind, Tensor};

/// Attention of some query rows over a part of the keys.
#[derive(Debug)]
pub struct Partial {
    /// `[batch, heads, queries, head_dim]`: softmax over this part's keys, times their values.
    pub out: Tensor,
    /// `[batch, heads, queries]`: `ln Σ exp(score)` over this part's keys (−∞ where a row
    /// saw none of them).
    pub lse: Tensor,
}

/// Which pairs of a block of queries and a block of keys may attend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mask {
    /// Every query sees every key.
    Full,
    /// The same positions on both sides (a block on the diagonal of a causal mask): query
    /// `i` sees keys `0..=i`.
    Diagonal,
}

/// The scores `q kᵀ / √d`, `[batch, heads, queries, keys]`.
fn scores(q: &Tensor, k: &Tensor) -> Tensor {
    let d = *q.size().last().expect("a head dimension") as f64;
    q.matmul(&k.transpose(-2, -1)) / d.sqrt()
}

/// The attention of `q` over the keys `k` and values `v` of one block, masked by `mask`.
pub fn attend_block(q: &Tensor, k: &Tensor, v: &Tensor, mask: Mask) -> Partial {
    let mut s = scores(q, k);
    if mask == Mask::Diagonal {
        let (nq, nk) = (q.size()[2], k.size()[2]);
        let future = Tensor::ones([nq, nk], (Kind::Bool, q.device())).triu(1);
        s = s.masked_fill(&future, f64::NEG_INFINITY);
    }
    let lse = s.logsumexp([-1], false);
    let out = (s - lse.unsqueeze(-1)).exp().matmul(v);
    Partial { out, lse }
}

/// One process's attention of the whole sequence (`[batch, heads, seq, head_dim]` each),
/// causal or not: the reference the ranks are checked against.
pub fn full_attention(q: &Tensor, k: &Tensor, v: &Tensor, causal: bool) -> Tensor {
    let mask = if causal { Mask::Diagonal } else { Mask::Full };
    attend_block(q, k, v, mask).out
}
