//! Given: what context parallelism buys, measured: the bytes a rank's forward pass of the
//! GPT keeps for its backward (its activations), read from the C heap (chapter 7's
//! `ch07::heap`: LibTorch takes tensors' memory from `malloc`), at a CP of 1, 2 or 4 and a
//! context of 1x, 2x and 4x. The lab `cp_memory` prints them next to the formula.
//!
//! Everything a block keeps is per token: its inputs, layer norms, q, k and v, the ring's
//! output and log-sum-exp, the MLP's features. None of it is `s x s`: the ring recomputes
//! each block pair's scores in the backward from the lse, so only one block pair's scores
//! exist at a time, while it is computed. So the activations per rank are `A · b · s / cp`
//! bytes for `A` bytes per token, and `A` is read once, at CP 1 and the shortest context.
//! The scores of one block pair come on top, for a moment: `b · H · (s / cp)² · 8` bytes
//! (f64), which CP cuts by cp².

use crate::context::{Attention, CpContext};
use crate::gpt_cp::{CpGrid, CpLayout};
use ch09::corpus::{Corpus, Split};
use ch09::gpt::{logits, GptConfig, GptParams};
use ch09::grid::Layout;
use ch09::params::BlockConfig;
use ch09::tape::Tape;
use clap::Parser;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use tch::Kind;

/// The lab `cp_memory`'s settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "cp_memory",
    disable_version_flag = true,
    about = "The GPT's activation bytes per rank at CP 1, 2 and 4 as the context grows, \
             measured on the heap, next to the formula; the longest context a budget holds"
)]
pub struct MemoryFlags {
    /// The shortest context (1x), in characters (4 must divide it)
    #[arg(long, value_name = "S", default_value_t = 256, value_parser = crate::flags::positive::<usize>)]
    pub seq: usize,
    /// Sequences in the batch
    #[arg(long, value_name = "B", default_value_t = 4, value_parser = crate::flags::positive::<usize>)]
    pub batch: usize,
    /// The activation budget per rank, in MiB
    #[arg(long = "max-mem", value_name = "MIB", default_value_t = 64, value_parser = crate::flags::positive::<usize>)]
    pub max_mem: usize,
}

impl MemoryFlags {
    /// Refuses a shortest context that CP 4 cannot split.
    pub fn check(&self) -> Result<(), String> {
        match self.seq.is_multiple_of(4) {
            true => Ok(()),
            false => Err(format!(
                "--seq {}: CP 4 splits it into 4 equal parts; --seq {} does",
                self.seq,
                self.seq.div_ceil(4) * 4
            )),
        }
    }
}

/// Chapter 9's lab model (2 blocks, h = 96, 6 heads) at a context of `seq`, `batch`
/// sequences.
pub fn model(vocab: usize, batch: usize, seq: usize) -> GptConfig {
    let block = BlockConfig::new(batch, seq, 96, 6).expect("6 heads of 16");
    GptConfig {
        vocab,
        layers: 2,
        block,
    }
}

/// The bytes the forward pass of `cfg` keeps on this rank, with the sequence split over
/// the `cp` consecutive ranks of `world` it sits among (`cp` divides the ranks and the
/// context): the heap after the forward (its tape and graph alive) less before it; the
/// largest over `world`'s ranks. Collective over `world`.
pub fn held_by_forward(
    world: &SimpleCommunicator,
    corpus: &Corpus,
    cfg: &GptConfig,
    cp: usize,
) -> u64 {
    let color = Color::with_value(world.rank() / cp as i32);
    let group = world.split_by_color(color).expect("every rank has a color");
    let layout = CpLayout {
        cp,
        grid: Layout::new(1, 1, 1).expect("one rank"),
    };
    let grid = CpGrid::new(&group, layout);
    let context = CpContext::new(&grid.cp, Attention::Ring);
    let tp = grid.tp(&context);
    let params = GptParams::whole(cfg, Kind::Float, 7);
    let b = cfg.block.batch;
    let (x, _) = corpus.batch(Split::Train, 7, 1, b, cfg.block.seq, 0..b);
    let x = tp.local_tokens(&x);
    let before = ch07::heap::in_use().unwrap_or(0);
    let mut tape = Tape::new();
    let out = logits(&mut tape, &tp, &params, cfg, &x);
    let after = ch07::heap::in_use().unwrap_or(0);
    drop((out, tape));
    let mine = after.saturating_sub(before);
    let mut most = 0u64;
    world.all_reduce_into(&mine, &mut most, mpi::collective::SystemOperation::max());
    most
}

/// The bytes of one block pair's scores while it is computed: `b · H · t² · 8` for `t`
/// tokens a rank (f64).
pub fn block_pair_scores(cfg: &GptConfig, tokens_per_rank: usize) -> u64 {
    let b = &cfg.block;
    (b.batch * b.heads * tokens_per_rank * tokens_per_rank * 8) as u64
}
