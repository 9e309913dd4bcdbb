//! Given: a transformer block's shape and parameters, whole (one process) or one rank's
//! shard of them.
//!
//! The whole block is made from a seed, the same on every rank; rank r of t then keeps its
//! shard: the heads `even_range(heads, t, r)` of Q, K, V (column-parallel) and of the
//! output projection (row-parallel), the MLP features `even_range(ffn, t, r)` of its first
//! layer (column-parallel) and of its second (row-parallel), and all of the layer norms'
//! and the row-parallel layers' biases. At t = 1 the shard is the whole block.

use crate::linear::{column_shard, row_shard};
use crate::shards::even_range;
use tch::{Device, Kind, Tensor};

/// A transformer block's shape: `batch` sequences of `seq` tokens of `hidden` features,
/// `heads` attention heads of `hidden / heads` features, an MLP of `ffn` features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockConfig {
    pub batch: usize,
    pub seq: usize,
    pub hidden: usize,
    pub heads: usize,
    pub ffn: usize,
}

impl BlockConfig {
    /// A block of `hidden` features and `heads` heads with the usual MLP of 4 x hidden;
    /// `Err` when the heads do not divide `hidden`.
    pub fn new(batch: usize, seq: usize, hidden: usize, heads: usize) -> Result<Self, String> {
        if heads == 0 || !hidden.is_multiple_of(heads) {
            return Err(format!(
                "{heads} heads do not divide the hidden size {hidden}"
            ));
        }
        let ffn = 4 * hidden;
        Ok(BlockConfig {
            batch,
            seq,
            hidden,
            heads,
            ffn,
        })
    }

    /// Features per head.
    pub fn head_dim(&self) -> usize {
        self.hidden / self.heads
    }

    /// Whether `t` ranks can share this block (they must divide the heads and the MLP's
    /// features); `Err` in one line. Checked before any communication.
    pub fn check(&self, t: usize) -> Result<(), String> {
        even_range(self.heads, t, 0, "heads")?;
        even_range(self.ffn, t, 0, "MLP features")?;
        Ok(())
    }
}

/// The parameters of a block (LibTorch's `[out, in]` weights), whole or one rank's shard.
pub struct BlockParams {
    pub ln1_w: Tensor,
    pub ln1_b: Tensor,
    pub wq: Tensor,
    pub bq: Tensor,
    pub wk: Tensor,
    pub bk: Tensor,
    pub wv: Tensor,
    pub bv: Tensor,
    pub wo: Tensor,
    pub bo: Tensor,
    pub ln2_w: Tensor,
    pub ln2_b: Tensor,
    pub w1: Tensor,
    pub b1: Tensor,
    pub w2: Tensor,
    pub b2: Tensor,
}

/// A new leaf with `t`'s values, its own storage, that requires grad.
fn leaf(t: &Tensor) -> Tensor {
    t.detach().copy().set_requires_grad(true)
}

impl BlockParams {
    /// The whole block, drawn from `seed` in `kind` (f32 or f64): weights scaled by
    /// 1/sqrt(in), biases and the norms' shifts small and non-zero, the norms' scales
    /// near 1.
    pub fn whole(cfg: &BlockConfig, kind: Kind, seed: i64) -> Self {
        tch::manual_seed(seed);
        let (h, f) = (cfg.hidden as i64, cfg.ffn as i64);
        let opt = (kind, Device::Cpu);
        let w = |o: i64, i: i64| leaf(&(Tensor::randn([o, i], opt) / (i as f64).sqrt()));
        let small = |n: i64| leaf(&(Tensor::randn([n], opt) * 0.1));
        let near_one = |n: i64| leaf(&(Tensor::randn([n], opt) * 0.1 + 1.0));
        BlockParams {
            ln1_w: near_one(h),
            ln1_b: small(h),
            wq: w(h, h),
            bq: small(h),
            wk: w(h, h),
            bk: small(h),
            wv: w(h, h),
            bv: small(h),
            wo: w(h, h),
            bo: small(h),
            ln2_w: near_one(h),
            ln2_b: small(h),
            w1: w(f, h),
            b1: small(f),
            w2: w(h, f),
            b2: small(h),
        }
    }

    /// Rank `rank`'s shard of `t` (see the module's documentation), as new leaves;
    /// applied to a block of gradients it cuts them the same way. `Err` when `t` does
    /// not divide the heads or the MLP's features.
    pub fn shard(&self, cfg: &BlockConfig, t: usize, rank: usize) -> Result<Self, String> {
        let heads = even_range(cfg.heads, t, rank, "heads")?;
        let d = cfg.head_dim();
        let cols = heads.start * d..heads.end * d;
        let ffn = even_range(cfg.ffn, t, rank, "MLP features")?;
        let column = |w: &Tensor, b: &Tensor, c: std::ops::Range<usize>| {
            let (w, b) = column_shard(w, b, c);
            (leaf(&w), leaf(&b))
        };
        let (wq, bq) = column(&self.wq, &self.bq, cols.clone());
        let (wk, bk) = column(&self.wk, &self.bk, cols.clone());
        let (wv, bv) = column(&self.wv, &self.bv, cols.clone());
        let (w1, b1) = column(&self.w1, &self.b1, ffn.clone());
        Ok(BlockParams {
            ln1_w: leaf(&self.ln1_w),
            ln1_b: leaf(&self.ln1_b),
            wq,
            bq,
            wk,
            bk,
            wv,
            bv,
            wo: leaf(&row_shard(&self.wo, cols)),
            bo: leaf(&self.bo),
            ln2_w: leaf(&self.ln2_w),
            ln2_b: leaf(&self.ln2_b),
            w1,
            b1,
            w2: leaf(&row_shard(&self.w2, ffn)),
            b2: leaf(&self.b2),
        })
    }

    /// The parameters with their names, in the block's order.
    pub fn named(&self) -> Vec<(&'static str, &Tensor)> {
        vec![
            ("ln1.weight", &self.ln1_w),
            ("ln1.bias", &self.ln1_b),
            ("q.weight", &self.wq),
            ("q.bias", &self.bq),
            ("k.weight", &self.wk),
            ("k.bias", &self.bk),
            ("v.weight", &self.wv),
            ("v.bias", &self.bv),
            ("out.weight", &self.wo),
            ("out.bias", &self.bo),
            ("ln2.weight", &self.ln2_w),
            ("ln2.bias", &self.ln2_b),
            ("mlp1.weight", &self.w1),
            ("mlp1.bias", &self.b1),
            ("mlp2.weight", &self.w2),
            ("mlp2.bias", &self.b2),
        ]
    }

    /// The gradients of the parameters after a backward, as a block of their own (zeros
    /// where a parameter got none), to be compared or cut with [`BlockParams::shard`].
    pub fn grads(&self) -> Self {
        let g = |t: &Tensor| {
            let g = t.grad();
            match g.defined() {
                true => g.detach().copy(),
                false => t.zeros_like().detach(),
            }
        };
        BlockParams {
            ln1_w: g(&self.ln1_w),
            ln1_b: g(&self.ln1_b),
            wq: g(&self.wq),
            bq: g(&self.bq),
            wk: g(&self.wk),
            bk: g(&self.bk),
            wv: g(&self.wv),
            bv: g(&self.bv),
            wo: g(&self.wo),
            bo: g(&self.bo),
            ln2_w: g(&self.ln2_w),
            ln2_b: g(&self.ln2_b),
            w1: g(&self.w1),
            b1: g(&self.b1),
            w2: g(&self.w2),
            b2: g(&self.b2),
        }
    }

    /// Elements held, in all.
    pub fn numel(&self) -> usize {
        self.named().iter().map(|(_, t)| t.numel()).sum()
    }
}
