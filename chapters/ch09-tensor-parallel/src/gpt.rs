//! Given: a small GPT, whole (one process) or one tensor-parallel rank's shard of it.
//!
//! Tokens go through a vocabulary-parallel embedding (ex 9.6) plus a learned position
//! embedding (replicated), `layers` of part 1's tensor-parallel blocks, a final layer
//! norm, and a head tied to the embedding: rank r's rows of the table (the ids
//! `vocab_range(V, t, r)`) are also its columns of the logits, so the head is a
//! column-parallel layer over the vocabulary that needs no parameters of its own, and
//! ex 9.6's cross-entropy reads its logits where they are, never gathered. Tying saves
//! V x h parameters, and both uses of a row land on the same rank, so their gradients
//! add up locally. The head's f (an
//! allreduce of the final activations' gradient) is its only communication.
//!
//! The whole model is drawn from a seed, the same on every rank; rank r of t then keeps
//! its slices, so the model at t = 1 and every shard at t > 1 are the same numbers.

use crate::block::block_forward;
use crate::ops::layer_norm;
use crate::params::{BlockConfig, BlockParams};
use crate::shards::vocab_range;
use crate::tape::Tape;
use crate::tp::Tp;
use crate::vocab::{cross_entropy, embedding_forward};
use tch::{Device, Kind, Tensor};

/// A GPT's shape: a vocabulary of `vocab` tokens, `layers` blocks of shape `block`
/// (its `batch` is one replica's, its `seq` the context length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GptConfig {
    pub vocab: usize,
    pub layers: usize,
    pub block: BlockConfig,
}

impl GptConfig {
    /// Whether `t` ranks can share the model: they must divide each block's heads and MLP
    /// features (the vocabulary may split unevenly); `Err` in one line.
    pub fn check(&self, t: usize) -> Result<(), String> {
        self.block.check(t)
    }
}

/// The parameters of a GPT (the blocks' as in [`BlockParams`]).
pub struct GptParams {
    /// The token embedding, tied to the head: `[V, h]`, or rank r's rows `[V_r, h]`.
    pub tok: Tensor,
    /// The position embedding `[seq, h]`, whole on every rank.
    pub pos: Tensor,
    pub blocks: Vec<BlockParams>,
    pub lnf_w: Tensor,
    pub lnf_b: Tensor,
}

/// A new leaf with `t`'s values, its own storage, that requires grad.
fn leaf(t: &Tensor) -> Tensor {
    t.detach().copy().set_requires_grad(true)
}

/// `t`'s gradient, or zeros where it got none.
fn grad_of(t: &Tensor) -> Tensor {
    let g = t.grad();
    match g.defined() {
        true => g.detach().copy(),
        false => t.zeros_like().detach(),
    }
}

impl GptParams {
    /// The whole model, drawn from `seed` in `kind`: both embeddings N(0, 0.02²) (GPT-2's
    /// scale, so the first logits are near uniform and the first loss near ln V), the
    /// final norm near (1, 0), block l as [`BlockParams::whole`] from `seed + 1 + l`.
    pub fn whole(cfg: &GptConfig, kind: Kind, seed: i64) -> Self {
        tch::manual_seed(seed);
        let (v, s, h) = (
            cfg.vocab as i64,
            cfg.block.seq as i64,
            cfg.block.hidden as i64,
        );
        let opt = (kind, Device::Cpu);
        let tok = leaf(&(Tensor::randn([v, h], opt) * 0.02));
        let pos = leaf(&(Tensor::randn([s, h], opt) * 0.02));
        let lnf_w = leaf(&(Tensor::randn([h], opt) * 0.1 + 1.0));
        let lnf_b = leaf(&(Tensor::randn([h], opt) * 0.1));
        let blocks = (0..cfg.layers)
            .map(|l| BlockParams::whole(&cfg.block, kind, seed + 1 + l as i64))
            .collect();
        GptParams {
            tok,
            pos,
            blocks,
            lnf_w,
            lnf_b,
        }
    }

    /// Rank `rank`'s shard of `t`, as new leaves (of gradients too, applied to
    /// [`GptParams::grads`]): the rows `vocab_range(V, t, rank)` of the table, each
    /// block's [`BlockParams::shard`], the rest whole.
    pub fn shard(&self, cfg: &GptConfig, t: usize, rank: usize) -> Result<Self, String> {
        let ids = vocab_range(cfg.vocab, t, rank);
        let blocks = self.blocks.iter().map(|b| b.shard(&cfg.block, t, rank));
        Ok(GptParams {
            tok: leaf(&self.tok.narrow(0, ids.start as i64, ids.len() as i64)),
            pos: leaf(&self.pos),
            blocks: blocks.collect::<Result<_, _>>()?,
            lnf_w: leaf(&self.lnf_w),
            lnf_b: leaf(&self.lnf_b),
        })
    }

    /// The gradients after a backward, as a model of their own (zeros where none).
    pub fn grads(&self) -> Self {
        GptParams {
            tok: grad_of(&self.tok),
            pos: grad_of(&self.pos),
            blocks: self.blocks.iter().map(BlockParams::grads).collect(),
            lnf_w: grad_of(&self.lnf_w),
            lnf_b: grad_of(&self.lnf_b),
        }
    }

    /// Every tensor with its name, in a fixed order (the optimizer's and the checks').
    pub fn named(&self) -> Vec<(String, &Tensor)> {
        let mut all = vec![
            ("tok".to_string(), &self.tok),
            ("pos".to_string(), &self.pos),
        ];
        for (l, b) in self.blocks.iter().enumerate() {
            all.extend(
                b.named()
                    .into_iter()
                    .map(|(n, t)| (format!("block{l}.{n}"), t)),
            );
        }
        all.push(("lnf.weight".to_string(), &self.lnf_w));
        all.push(("lnf.bias".to_string(), &self.lnf_b));
        all
    }

    /// The tensors of [`GptParams::named`], sharing their storage (for the optimizer).
    pub fn tensors(&self) -> Vec<Tensor> {
        self.named()
            .iter()
            .map(|(_, t)| t.shallow_clone())
            .collect()
    }

    /// Elements held, in all.
    pub fn numel(&self) -> usize {
        self.named().iter().map(|(_, t)| t.numel()).sum()
    }
}

// ANCHOR: gpt_forward
/// The logits of this rank's vocabulary columns, `[b, s, V_r]`, for `tokens` (int64
/// `[b, s]`), with the cuts on `tape`: the embedding's g, each block's four, the head's f.
pub fn logits<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &GptParams,
    cfg: &GptConfig,
    tokens: &Tensor,
) -> Tensor {
    let ids = vocab_range(cfg.vocab, tp.size(), tp.rank());
    let s = tokens.size()[1];
    let mut x = embedding_forward(tape, tp, &p.tok, ids, tokens) + tp.positions_of(&p.pos, s);
    for block in &p.blocks {
        x = block_forward(tape, tp, block, &cfg.block, &x);
    }
    let x = tape.f(tp, &layer_norm(&x, &p.lnf_w, &p.lnf_b));
    x.matmul(&p.tok.tr())
}

/// The forward to the loss on this rank's shard: the tape, the logits of its columns
/// `[n, V_r]`, the mean cross-entropy of `targets` (the same on every rank of the group)
/// and its gradient with respect to those logits (ex 9.6).
fn forward_to_loss<'a>(
    tp: &'a Tp,
    p: &GptParams,
    cfg: &GptConfig,
    tokens: &Tensor,
    targets: &Tensor,
) -> (Tape<'a>, Tensor, Tensor, Tensor) {
    let (tokens, targets) = (&tp.local_tokens(tokens), &tp.local_tokens(targets));
    let mut tape = Tape::new();
    let out = logits(&mut tape, tp, p, cfg, tokens);
    let flat = out.view([-1, *out.size().last().expect("[b, s, V_r]")]);
    let ids = vocab_range(cfg.vocab, tp.size(), tp.rank());
    let (loss, dlogits) = cross_entropy(tp, &flat, ids, &targets.view([-1]));
    (tape, flat, loss, dlogits)
}

/// One forward and backward on this rank's shard: the mean cross-entropy of predicting
/// `targets` from `tokens`; the gradients accumulate in `p`.
pub fn loss_and_backward(
    tp: &Tp,
    p: &GptParams,
    cfg: &GptConfig,
    tokens: &Tensor,
    targets: &Tensor,
) -> f64 {
    let (tape, flat, loss, dlogits) = forward_to_loss(tp, p, cfg, tokens, targets);
    let _ = tape.backward(&flat, &dlogits); // the gradient of the token ids: none
    loss.double_value(&[])
}
// ANCHOR_END: gpt_forward

/// The mean cross-entropy alone, no backward (the validation loss).
pub fn loss_only(
    tp: &Tp,
    p: &GptParams,
    cfg: &GptConfig,
    tokens: &Tensor,
    targets: &Tensor,
) -> f64 {
    tch::no_grad(|| {
        forward_to_loss(tp, p, cfg, tokens, targets)
            .2
            .double_value(&[])
    })
}

/// The same model in one process with the whole parameters and no cut (what every
/// sharded run is checked against): LibTorch's own embedding and cross-entropy.
pub fn reference_loss(p: &GptParams, cfg: &GptConfig, tokens: &Tensor, targets: &Tensor) -> Tensor {
    let s = tokens.size()[1];
    let mut x = Tensor::embedding(&p.tok, tokens, -1, false, false) + p.pos.narrow(0, 0, s);
    for block in &p.blocks {
        x = crate::reference::block(block, &cfg.block, &x);
    }
    let logits = layer_norm(&x, &p.lnf_w, &p.lnf_b).matmul(&p.tok.tr());
    let flat = logits.view([-1, cfg.vocab as i64]);
    // (not tch's `cross_entropy_for_logits`: it computes in f32 whatever the kind)
    flat.log_softmax(-1, flat.kind())
        .nll_loss(&targets.view([-1]))
}
