//! Given: one pipeline stage of the GPT: which blocks it holds, its parameters (one
//! tensor-parallel rank's shard of them) and its forward.
//!
//! Stage s of p holds a contiguous range of blocks ([`stage_blocks`]: `L / p` each, the
//! first `L % p` stages one more, so the stages differ by at most one block); the first
//! stage also holds the token and position embeddings, the last the final layer norm and
//! the head. The head is tied to the token embedding, so at `p > 1` the first and the last
//! stage each hold a copy of the table's rows `V_r`, kept equal by summing their
//! gradients over the grid's embedding group ([`crate::grid`]). At `p = 1` the one stage
//! holds the whole shard of [`crate::gpt::GptParams`], one table.

use crate::block::block_forward;
use crate::gpt::{GptConfig, GptParams};
use crate::ops::layer_norm;
use crate::params::BlockParams;
use crate::shards::vocab_range;
use crate::tape::Tape;
use crate::tp::Tp;
use crate::vocab::embedding_forward;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: stage_blocks
/// The blocks stage `stage` of `stages` holds out of `layers` (`stages <= layers`):
/// `layers / stages` each, the first `layers % stages` stages one more.
pub fn stage_blocks(layers: usize, stages: usize, stage: usize) -> Range<usize> {
    let (per, extra) = (layers / stages, layers % stages);
    let start = stage * per + stage.min(extra);
    start..start + per + usize::from(stage < extra)
}
// ANCHOR_END: stage_blocks

/// The parameters of one stage on one tensor-parallel rank.
pub struct StageParams {
    /// The global numbers of this stage's blocks.
    pub blocks_at: Range<usize>,
    /// The rows `V_r` of the tied table: on the first stage (the embedding) and on the
    /// last (the head).
    pub tok: Option<Tensor>,
    /// The position embedding `[seq, h]`: on the first stage.
    pub pos: Option<Tensor>,
    pub blocks: Vec<BlockParams>,
    /// The final layer norm's weight and bias: on the last stage.
    pub lnf: Option<(Tensor, Tensor)>,
}

/// What enters a stage: the token ids (the first stage) or the activations the stage
/// before sent (`[b, s, h]`).
pub enum StageInput<'t> {
    Tokens(&'t Tensor),
    Activations(&'t Tensor),
}

impl StageParams {
    /// Stage `stage` of `stages`' part of `shard` (one rank's [`GptParams::shard`]).
    pub fn of(shard: GptParams, cfg: &GptConfig, stages: usize, stage: usize) -> Self {
        let blocks_at = stage_blocks(cfg.layers, stages, stage);
        let (first, last) = (stage == 0, stage + 1 == stages);
        let blocks = shard.blocks.into_iter().enumerate();
        let blocks = blocks
            .filter(|(l, _)| blocks_at.contains(l))
            .map(|(_, b)| b);
        StageParams {
            blocks_at: blocks_at.clone(),
            tok: (first || last).then_some(shard.tok),
            pos: first.then_some(shard.pos),
            blocks: blocks.collect(),
            lnf: last.then_some((shard.lnf_w, shard.lnf_b)),
        }
    }

    /// Every tensor with its name, named as [`GptParams::named`] names the same tensor.
    pub fn named(&self) -> Vec<(String, &Tensor)> {
        let mut all = vec![];
        if let Some(t) = &self.tok {
            all.push(("tok".to_string(), t));
        }
        if let Some(t) = &self.pos {
            all.push(("pos".to_string(), t));
        }
        for (l, b) in self.blocks_at.clone().zip(&self.blocks) {
            let named = b.named().into_iter();
            all.extend(named.map(|(n, t)| (format!("block{l}.{n}"), t)));
        }
        if let Some((w, b)) = &self.lnf {
            all.push(("lnf.weight".to_string(), w));
            all.push(("lnf.bias".to_string(), b));
        }
        all
    }

    /// The tensors of [`StageParams::named`], sharing their storage (for the optimizer).
    pub fn tensors(&self) -> Vec<Tensor> {
        let named = self.named();
        named.iter().map(|(_, t)| t.shallow_clone()).collect()
    }

    /// Elements held, in all.
    pub fn numel(&self) -> usize {
        self.named().iter().map(|(_, t)| t.numel()).sum()
    }
}

// ANCHOR: stage_forward
/// The stage's forward on this rank's shard, its cuts on `tape`: the embeddings (first
/// stage) or the activations received, its blocks, then the final norm and the head's
/// logits of this rank's columns `[b, s, V_r]` (last stage) or the activations to send
/// on `[b, s, h]`.
pub fn stage_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &StageParams,
    cfg: &GptConfig,
    input: StageInput,
) -> Tensor {
    let ids = vocab_range(cfg.vocab, tp.size(), tp.rank());
    let mut x = match (input, &p.tok, &p.pos) {
        (StageInput::Tokens(tokens), Some(tok), Some(pos)) => {
            let s = tokens.size()[1];
            embedding_forward(tape, tp, tok, ids, tokens) + tp.positions_of(pos, s)
        }
        (StageInput::Activations(x), _, None) => x.shallow_clone(),
        _ => panic!("token ids enter the first stage, activations the others"),
    };
    for block in &p.blocks {
        x = block_forward(tape, tp, block, &cfg.block, &x);
    }
    match (&p.lnf, &p.tok) {
        (Some((w, b)), Some(tok)) => tape.f(tp, &layer_norm(&x, w, b)).matmul(&tok.tr()),
        _ => x,
    }
}
// ANCHOR_END: stage_forward
