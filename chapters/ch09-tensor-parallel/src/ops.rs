//! Given: the computations the sharded block and the one-process block share, written
//! once: the layer norm, the GeLU, and causal attention over whatever heads a rank holds.

use tch::Tensor;

/// The layer norm over the last dimension (`hidden`), scale `w`, shift `b`, eps 1e-5.
pub fn layer_norm(x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
    let h = *x.size().last().expect("a tensor with a feature dimension");
    x.layer_norm([h], Some(w), Some(b), 1e-5, false)
}

/// The MLP's non-linearity (the exact GeLU, applied to each feature on its own: a
/// column-parallel layer's output needs no communication before it).
pub fn gelu(x: &Tensor) -> Tensor {
    x.gelu("none")
}

// ANCHOR: attend
/// Causal self-attention of the heads in `q`, `k`, `v` (`[batch, seq, heads * head_dim]`,
/// each head's features consecutive): per head, softmax(q k^T / sqrt(head_dim)) over the
/// tokens up to each token, times v; `[batch, seq, heads * head_dim]` again. Heads never
/// mix, so a rank with some of the heads computes exactly their part.
pub fn attend(q: &Tensor, k: &Tensor, v: &Tensor, head_dim: usize) -> Tensor {
    let (b, s, width) = q.size3().expect("[batch, seq, features]");
    let (d, heads) = (head_dim as i64, width / head_dim as i64);
    let split = |t: &Tensor| t.view([b, s, heads, d]).transpose(1, 2); // [b, heads, s, d]
    let (q, k, v) = (split(q), split(k), split(v));
    let scores = q.matmul(&k.transpose(-2, -1)) / (d as f64).sqrt();
    let future = Tensor::ones([s, s], (tch::Kind::Bool, q.device())).triu(1);
    let weights = scores
        .masked_fill(&future, f64::NEG_INFINITY)
        .softmax(-1, q.kind());
    weights
        .matmul(&v)
        .transpose(1, 2)
        .contiguous()
        .view([b, s, width])
}
// ANCHOR_END: attend
