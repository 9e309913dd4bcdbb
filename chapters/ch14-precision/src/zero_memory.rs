//! Given: what a ZeRO rank holds in mixed precision, as the ZeRO paper counts it: the
//! working weights and their gradients in bf16 (2 bytes each, kept as bf16 codes) and the
//! f32 master weights with Adam's m and v (4 + 4 + 4 = 12 bytes). The stage says which of
//! the three a rank keeps whole and which for its 1/N shard only:
//!
//! | stage | working bf16 | gradient bf16 | master, m, v (f32) | bytes per rank |
//! |---|---|---|---|---|
//! | 0 (plain data parallelism) | whole | whole | whole | 16P |
//! | 1 (ZeRO-1, the paper's P_os) | whole | whole | 1/N | 4P + 12P/N |
//! | 2 (ZeRO-2, P_os+g) | whole | 1/N | 1/N | 2P + 14P/N |
//! | 3 (ZeRO-3, P_os+g+p) | 1/N | 1/N | 1/N | 16P/N |
//!
//! Nothing to run here: `crate::zero`, the `zero_mixed` lab and the tests use it.

use ch08::memory::Stage;
use ch08::shards::Layout;
use tch::{Kind, Tensor};

/// Bytes a rank holds between steps, by kind, measured from its buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixedHeld {
    /// The bf16 working weights: all of them (stages 0 to 2) or the shard (stage 3).
    pub working: usize,
    /// The bf16 gradient: this rank's whole own one (stages 0, 1) or the averaged shard.
    pub grads: usize,
    /// The f32 master weights and Adam's m and v: for everything (stage 0) or the shard.
    pub master: usize,
}

impl MixedHeld {
    /// All of it.
    pub fn total(&self) -> usize {
        self.working + self.grads + self.master
    }
}

/// Bytes per rank by the ZeRO paper's formulas for mixed precision with Adam, for `p`
/// parameters (padded: a multiple of `n` at stages 1 to 3) over `n` ranks.
pub fn formula(stage: Stage, p: usize, n: usize) -> usize {
    match stage {
        Stage::Replicated => 16 * p,
        Stage::Zero1 => 4 * p + 12 * p / n,
        Stage::Zero2 => 2 * p + 14 * p / n,
        Stage::Zero3 => 16 * p / n,
    }
}

/// [`formula`] as text.
pub fn formula_text(stage: Stage) -> &'static str {
    match stage {
        Stage::Replicated => "16P",
        Stage::Zero1 => "4P + 12P/N",
        Stage::Zero2 => "2P + 14P/N",
        Stage::Zero3 => "16P/N",
    }
}

/// f32 values rounded to bf16 codes by LibTorch's cast (to nearest, ties to even).
pub fn to_bf16(values: &[f32]) -> Vec<u16> {
    let t = Tensor::from_slice(values).to_kind(Kind::BFloat16);
    let codes = Vec::<i16>::try_from(&t.view_dtype(Kind::Int16)).expect("bf16 codes");
    codes.into_iter().map(|c| c as u16).collect()
}

/// bf16 codes as f32 values (exact: a bf16 is the top half of an f32).
pub fn from_bf16(codes: &[u16]) -> Vec<f32> {
    codes
        .iter()
        .map(|&c| f32::from_bits(u32::from(c) << 16))
        .collect()
}

/// `rank`'s shard of `params` elements over `ranks`: shards of ceil(P/N), the last ones
/// padded (ex 8.1's rule, written here so that this chapter needs no chapter-8 exercise).
pub fn unit_layout(params: usize, ranks: usize, rank: usize) -> Result<Layout, String> {
    Layout::check(params, ranks)?;
    let shard = params.div_ceil(ranks);
    let mine = rank * shard..(rank + 1) * shard;
    let padded = shard * ranks;
    Ok(Layout {
        params,
        ranks,
        rank,
        shard,
        padded,
        mine,
    })
}
