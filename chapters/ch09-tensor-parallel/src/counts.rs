//! Given: what a rank of t holds and sends for one transformer block, by formula (the lab
//! prints each next to what it measured).
//!
//! Shapes: b sequences of s tokens, h features, a heads, an MLP of F features.

use crate::gpt::GptConfig;
use crate::params::BlockConfig;

/// Parameters rank r of t holds: Q, K, V and the MLP's first layer column-parallel
/// (weights and biases / t), the output projection and the MLP's second layer
/// row-parallel (weights / t, biases whole), the two layer norms whole:
/// `(4h² + 2hF)/t + (3h + F)/t + 2h + 4h`.
pub fn params_per_rank(cfg: &BlockConfig, t: usize) -> usize {
    let (h, f) = (cfg.hidden, cfg.ffn);
    (4 * h * h + 2 * h * f) / t + (3 * h + f) / t + 2 * h + 4 * h
}

/// Allreduces per block: `(forward, backward)` = (2, 2): the g after attention and after
/// the MLP forward, the f before each backward.
pub const ALLREDUCES: (usize, usize) = (2, 2);

/// Elements of each of the block's allreduces: one activation (or its gradient) of the
/// whole batch, `b * s * h`.
pub fn allreduce_elements(cfg: &BlockConfig) -> usize {
    cfg.batch * cfg.seq * cfg.hidden
}

/// Elements of the activations one forward of the block computes on rank r of t (what
/// autograd may keep for the backward), in two parts: `(whole, sharded)`. Whole, on every
/// rank: the input, the first norm, the attention's output after g, h, the second norm,
/// the MLP's output after g: `6bsh`. Sharded: Q, K, V, the heads' output (`4bsh/t`), the
/// scores and their softmax (`2b(a/t)s²`), the MLP's two hidden activations (`2bsF/t`).
pub fn activation_elements(cfg: &BlockConfig, t: usize) -> (usize, usize) {
    let (b, s, h, a, f) = (cfg.batch, cfg.seq, cfg.hidden, cfg.heads, cfg.ffn);
    let whole = 6 * b * s * h;
    let sharded = 4 * b * s * h / t + 2 * b * (a / t) * s * s + 2 * b * s * f / t;
    (whole, sharded)
}

/// Parameters rank r of t holds of a GPT ([`crate::gpt`]): its `V_r` rows of the tied
/// embedding, the position embedding, each block's shard, the final norm:
/// `V_r h + s h + L [block] + 2h`, `V_r = vocab_range(V, t, r).len()`.
pub fn gpt_params_per_rank(cfg: &GptConfig, t: usize, vocab_rows: usize) -> usize {
    let (s, h) = (cfg.block.seq, cfg.block.hidden);
    vocab_rows * h + s * h + cfg.layers * params_per_rank(&cfg.block, t) + 2 * h
}

/// A GPT's allreduces per training step on the tensor-parallel group, and their elements
/// in all, for `n = b s` tokens of a replica: the embedding's g, each block's 2 + 2, the
/// head's f (each `n h`), and the cross-entropy's three (each `n`):
/// `(4L + 5, (4L + 2) n h + 3 n)`.
pub fn gpt_tp_allreduces(cfg: &GptConfig) -> (usize, usize) {
    let n = cfg.block.batch * cfg.block.seq;
    let l = cfg.layers;
    (4 * l + 5, (4 * l + 2) * n * cfg.block.hidden + 3 * n)
}

/// Parameters a rank of stage `stage` of `pp` holds ([`crate::stage`]): `blocks` block
/// shards, the first stage also `V_r h + s h` (the table's rows, the positions), the last
/// also `V_r h + 2h` (its copy of the table, the final norm), one table when both:
/// `[V_r h] + [s h] + L_s [block] + [2h]`. At one stage, [`gpt_params_per_rank`].
pub fn gpt_stage_params(
    cfg: &GptConfig,
    t: usize,
    vocab_rows: usize,
    blocks: usize,
    ends: (bool, bool),
) -> usize {
    let (s, h) = (cfg.block.seq, cfg.block.hidden);
    let (first, last) = ends;
    let table = usize::from(first || last) * vocab_rows * h;
    let pos = usize::from(first) * s * h;
    table + pos + blocks * params_per_rank(&cfg.block, t) + usize::from(last) * 2 * h
}

/// A stage's allreduces per step on the tensor-parallel group, and their elements, for
/// `n = b s` tokens of a replica in `m` micro-batches: per micro-batch the embedding's g
/// (first stage), each of its `blocks` blocks' 2 + 2, the head's f (last stage), each of
/// `n h / m` elements, and the cross-entropy's three of `n / m` (last stage):
/// `(m (e + 4 L_s + f + 3 f), (e + 4 L_s + f) n h + 3 f n)`, e and f 1 on the first and
/// the last stage, else 0. At one stage and m = 1, [`gpt_tp_allreduces`].
pub fn gpt_stage_tp_allreduces(
    cfg: &GptConfig,
    blocks: usize,
    ends: (bool, bool),
    m: usize,
) -> (usize, usize) {
    let n = cfg.block.batch * cfg.block.seq;
    let (e, f) = (usize::from(ends.0), usize::from(ends.1));
    let big = e + 4 * blocks + f;
    (m * (big + 3 * f), big * n * cfg.block.hidden + 3 * f * n)
}

/// A stage's point-to-point sends per step, and their elements: `m` activations
/// `[b/m, s, h]` forward (unless last), `m` gradients of them backward (unless first);
/// a boundary carries `2 m (b/m) s h = 2 b s h` elements a step, both ways.
pub fn gpt_stage_sends(cfg: &GptConfig, ends: (bool, bool), m: usize) -> (usize, usize) {
    let directions = usize::from(!ends.0) + usize::from(!ends.1);
    let b = &cfg.block;
    (directions * m, directions * b.batch * b.seq * b.hidden)
}
