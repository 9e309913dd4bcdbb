//! Given: the `compress_gpt` lab's flags and its run of one [`Scheme`]: chapter 9's GPT
//! (its defaults: 2 blocks, h = 96, 6 heads, a context of 64 characters, Adam at 0.003,
//! f32) trained data parallel over every rank (dp = the ranks, tp 1) on the book's pages,
//! its gradients summed through [`Compressed`] (one buffer: the whole gradient), from the
//! same start and the same batches for every scheme; then the training loss of the last
//! steps and chapter 9's validation loss. Nothing to run here: the lab and the tests use it.

use crate::compressed::{Compressed, Scheme};
use crate::lab_flags::{positive, read};
use ch06::reducer::Allreduce;
use ch09::corpus::Corpus;
use ch09::gpt_flags::GptFlags;
use ch09::gpt_lab::valid_loss;
use ch09::grid::Grid;
use ch09::train::GridTrainer;
use clap::{CommandFactory, Parser};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;
use tch::Kind;
use toolkit::report::Timing;

/// The lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "compress_gpt",
    disable_version_flag = true,
    about = "Chapter 9's GPT trained data parallel on the book's pages, its gradients summed \
             dense, by top-k and by 8-bit codes: bytes and time per step, training and \
             validation loss after the same steps"
)]
pub struct GptRunFlags {
    /// Training steps per method
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = positive::<u64>)]
    pub steps: u64,
    /// The seed of the model and of the batches (the same for every method)
    #[arg(long, value_name = "S", default_value_t = 9)]
    pub seed: u64,
}

/// The global batch: chapter 9's 16 sequences, rounded down to a multiple of the ranks
/// (15 at 3 ranks), at least one a rank.
pub fn global_batch(ranks: usize) -> usize {
    (16 / ranks.max(1)).max(1) * ranks.max(1)
}

/// The flags after the program's name, or the one line that says what is wrong.
pub fn parse(args: &[String]) -> Result<GptRunFlags, String> {
    read("compress_gpt", args)
}

/// `compress_gpt --help`.
pub fn help() -> String {
    GptRunFlags::command().render_help().to_string()
}

/// Chapter 9's `gpt` flags for this run: its defaults, dp = the ranks, tp 1, the batch
/// of [`global_batch`], the lab's steps and seed.
pub fn gpt_flags(f: &GptRunFlags, ranks: usize) -> GptFlags {
    let mut g = GptFlags::default();
    (g.tp, g.steps) = (Some(1), f.steps);
    (g.common.batch, g.common.seed) = (global_batch(ranks), f.seed);
    g
}

/// What one scheme measured.
#[derive(Clone, Debug)]
pub struct GptRun {
    /// Parameters of the model (the gradient's length).
    pub params: usize,
    /// The bytes one rank handed to the exchange per step, counted (the most of any rank).
    pub bytes_per_step: usize,
    /// Seconds per step, and in the gradient sum, the slowest rank's.
    pub step_secs: f64,
    pub sync_secs: f64,
    /// The training loss over the last 50 steps (or all, if fewer), over the replicas.
    pub train_loss: f64,
    /// Chapter 9's validation loss after the last step.
    pub valid_loss: f64,
}

/// Trains `f.steps` steps of chapter 9's GPT over `world` (dp = its ranks) with `scheme`
/// summing the gradients. Local SGD is no gradient sum and is refused.
pub fn train(
    world: &SimpleCommunicator,
    f: &GptRunFlags,
    corpus: &Corpus,
    scheme: Scheme,
) -> Result<GptRun, String> {
    if let Scheme::LocalSgd { .. } = scheme {
        return Err("local SGD averages parameters, not gradients: not a DP sum".into());
    }
    let g = gpt_flags(f, world.size() as usize);
    let layout = g.layout(world.size() as usize)?;
    let cfg = g.model(corpus.vocab(), layout)?;
    let grid = Grid::new(world, layout);
    let trainer = GridTrainer::new(&grid, cfg, Kind::Float, g.common.seed as i64, g.common.lr)?;
    let params = trainer.params.numel();
    let backend = Compressed::new(&grid.dp, scheme, &[params])?;
    let (bytes, sync) = (backend.bytes(), Rc::new(Cell::new(0.0)));
    let timed = Rc::clone(&sync);
    let mut trainer = trainer.with_dp_sum(Box::new(move |buf| {
        let t = Instant::now();
        backend.sum_in_place(buf);
        timed.set(timed.get() + t.elapsed().as_secs_f64());
    }));
    toolkit::idle::barrier(world);
    let start = Instant::now();
    let (mut sum, mut k) = (0.0, 0);
    for step in 1..=f.steps {
        let loss = trainer.step(corpus, f.seed, step).loss;
        if step + 50 > f.steps {
            (sum, k) = (sum + loss, k + 1);
        }
    }
    let n = f.steps as f64;
    let step_secs = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max / n;
    let sync_secs = Timing::over_ranks(world, sync.get()).max / n;
    let train_loss = trainer.mean_over_replicas(sum / k.max(1) as f64);
    let valid_loss = valid_loss(&trainer, corpus, f.seed, f.steps);
    let (mine, mut most) = ((bytes.get() as u64) / f.steps, 0u64);
    world.all_reduce_into(&mine, &mut most, SystemOperation::max());
    Ok(GptRun {
        params,
        bytes_per_step: most as usize,
        step_secs,
        sync_secs,
        train_loss,
        valid_loss,
    })
}
