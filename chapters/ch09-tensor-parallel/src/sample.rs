//! Given: text from the trained GPT, the same on every rank of a tensor-parallel group.
//!
//! Each rank has the logits of its own vocabulary columns only. To pick the next
//! character they are gathered with one allreduce of V numbers (each rank writes its
//! columns in place in a vector of zeros, the sum is every column), then every rank draws
//! from the same softmax with the same seeded generator (SplitMix64), so every rank picks
//! the same character without another message. The context is the last `seq` characters.

use crate::gpt::{logits, GptConfig, GptParams};
use crate::shards::vocab_range;
use crate::tape::Tape;
use crate::tp::Tp;
use tch::{Kind, Tensor};
use trainer_kit::rng::SplitMix64;

/// `prompt` (token ids) followed by `n` tokens drawn at `temperature` from `seed`.
pub fn generate(
    tp: &Tp,
    p: &GptParams,
    cfg: &GptConfig,
    prompt: &[i64],
    n: usize,
    temperature: f64,
    seed: u64,
) -> Vec<i64> {
    let mut rng = SplitMix64(seed);
    let mut text = prompt.to_vec();
    for _ in 0..n {
        let from = text.len().saturating_sub(cfg.block.seq);
        let context = Tensor::from_slice(&text[from..]).view([1, -1]);
        let context = context.to_device(p.tok.device());
        let mine = tch::no_grad(|| logits(&mut Tape::new(), tp, p, cfg, &context));
        text.push(draw(tp, cfg, &mine, temperature, &mut rng));
    }
    text
}

/// The next token after the last position of `mine` (this rank's columns of the logits,
/// `[1, s, V_r]`), drawn at `temperature` with `rng`: the same on every rank of `tp`.
pub fn draw(
    tp: &Tp,
    cfg: &GptConfig,
    mine: &Tensor,
    temperature: f64,
    rng: &mut SplitMix64,
) -> i64 {
    let ids_here = vocab_range(cfg.vocab, tp.size(), tp.rank());
    // ANCHOR: gather_and_draw
    let last = mine.select(1, -1).view([-1]).to_kind(Kind::Double);
    let whole = Tensor::zeros([cfg.vocab as i64], (Kind::Double, last.device()));
    let (start, len) = (ids_here.start as i64, ids_here.len() as i64);
    tch::no_grad(|| whole.narrow(0, start, len).copy_(&last));
    let all = tp.sum(&whole);
    let probs = (all / temperature).softmax(0, Kind::Double);
    let probs: Vec<f64> = Vec::try_from(&probs).expect("V probabilities");
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut cumulative = 0.0;
    let pick = probs.iter().position(|p| {
        cumulative += p;
        u < cumulative
    });
    pick.unwrap_or(cfg.vocab - 1) as i64
    // ANCHOR_END: gather_and_draw
}
