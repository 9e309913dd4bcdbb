//! Given: the block in one process, with the whole parameters and no cut in its graph:
//! what every tensor-parallel result is checked against.

use crate::ops::{attend, gelu, layer_norm};
use crate::params::{BlockConfig, BlockParams};
use tch::Tensor;

/// The MLP `gelu(x W1^T + b1) W2^T + b2`.
pub fn mlp(p: &BlockParams, x: &Tensor) -> Tensor {
    gelu(&x.linear(&p.w1, Some(&p.b1))).linear(&p.w2, Some(&p.b2))
}

/// Causal self-attention with all the heads, then the output projection.
pub fn attention(p: &BlockParams, cfg: &BlockConfig, x: &Tensor) -> Tensor {
    let q = x.linear(&p.wq, Some(&p.bq));
    let k = x.linear(&p.wk, Some(&p.bk));
    let v = x.linear(&p.wv, Some(&p.bv));
    attend(&q, &k, &v, cfg.head_dim()).linear(&p.wo, Some(&p.bo))
}

/// The pre-norm transformer block: `h = x + attention(ln1(x))`, `h + mlp(ln2(h))`.
pub fn block(p: &BlockParams, cfg: &BlockConfig, x: &Tensor) -> Tensor {
    let h = x + attention(p, cfg, &layer_norm(x, &p.ln1_w, &p.ln1_b));
    &h + mlp(p, &layer_norm(&h, &p.ln2_w, &p.ln2_b))
}
