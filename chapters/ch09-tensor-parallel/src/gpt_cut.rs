//! Given: which slice of each whole tensor of the GPT a tensor-parallel rank holds, by
//! name: `GptParams::shard`'s rules written once for the checkpoints, which gather the
//! slices into whole tensors ([`crate::gpt_ckpt`]) and cut whole tensors into any
//! layout's slices ([`crate::gpt_ckpt_read`]), the same for parameters, m and v.
//!
//! Tests: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_ckpt::`
//! (`the_cut_of_every_tensor_is_its_shard`).

use crate::gpt::GptConfig;
use crate::shards::{even_range, vocab_range};
use std::ops::Range;
use tch::Tensor;
/// Which part of a whole tensor a tensor-parallel rank holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// All of it (replicated).
    Whole,
    /// These rows (dimension 0): a column-parallel layer's output features, the
    /// embedding's vocabulary ids.
    Rows(Range<usize>),
    /// These columns (dimension 1): a row-parallel layer's input features.
    Cols(Range<usize>),
}

// ANCHOR: cut
/// The cut of the tensor `name` (`GptParams::named`'s) that rank `rank` of `t` holds:
/// `GptParams::shard`'s rules. `Err` when `t` does not divide the heads or the MLP.
pub fn cut(name: &str, cfg: &GptConfig, t: usize, rank: usize) -> Result<Cut, String> {
    if name == "tok" {
        return Ok(Cut::Rows(vocab_range(cfg.vocab, t, rank)));
    }
    let Some((_, layer)) = name.split_once('.').filter(|(b, _)| b.starts_with("block")) else {
        return Ok(Cut::Whole); // pos, lnf.weight, lnf.bias
    };
    let b = &cfg.block;
    let heads = even_range(b.heads, t, rank, "heads")?;
    let cols = heads.start * b.head_dim()..heads.end * b.head_dim();
    let ffn = even_range(b.ffn, t, rank, "MLP features")?;
    Ok(match layer {
        "q.weight" | "q.bias" | "k.weight" | "k.bias" | "v.weight" | "v.bias" => Cut::Rows(cols),
        "mlp1.weight" | "mlp1.bias" => Cut::Rows(ffn),
        "out.weight" => Cut::Cols(cols),
        "mlp2.weight" => Cut::Cols(ffn),
        _ => Cut::Whole,
    })
}

/// Rank `rank` of `t`'s slice of the whole tensor `name` (parameters, m or v alike).
pub fn slice_of(
    name: &str,
    whole: &Tensor,
    cfg: &GptConfig,
    t: usize,
    rank: usize,
) -> Result<Tensor, String> {
    let at = |r: &Range<usize>| (r.start as i64, r.len() as i64);
    Ok(match cut(name, cfg, t, rank)? {
        Cut::Whole => whole.shallow_clone(),
        Cut::Rows(r) => whole.narrow(0, at(&r).0, at(&r).1),
        Cut::Cols(r) => whole.narrow(1, at(&r).0, at(&r).1),
    })
}
// ANCHOR_END: cut

/// The rows or columns of a cut (0 for a whole tensor: not gathered).
pub fn len(c: &Cut) -> usize {
    match c {
        Cut::Whole => 0,
        Cut::Rows(r) | Cut::Cols(r) => r.len(),
    }
}

/// Elements of `cut`'s slice of a tensor of `whole` shape.
pub fn slice_numel(whole: &[i64], c: &Cut) -> usize {
    let all: i64 = whole.iter().product();
    match c {
        Cut::Whole => all as usize,
        Cut::Rows(r) => (all / whole[0]) as usize * r.len(),
        Cut::Cols(r) => (all / whole[1]) as usize * r.len(),
    }
}
