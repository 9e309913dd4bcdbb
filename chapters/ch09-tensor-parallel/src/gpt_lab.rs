//! Given: the lab `gpt`: a small GPT trained on the book's pages over a DP x TP grid; its
//! loss as it falls, what each rank holds and sends against the formulas of
//! [`crate::counts`], and a sample of text at the end.

use crate::corpus::{Corpus, Split};
use crate::counts::{gpt_params_per_rank, gpt_tp_allreduces};
use crate::gpt::loss_only;
use crate::gpt_ckpt;
use crate::gpt_flags::GptFlags;
use crate::gpt_lab_start::{header, resume};
use crate::grid::Grid;
use crate::sample::generate;
use crate::shards::vocab_range;
use crate::train::{replica_rows, GridTrainer, StepStats};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tabled::{Table, Tabled};
use tch::{Kind, Tensor};

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "rank (dp, tp)")]
    rank: String,
    #[tabled(rename = "parameters held")]
    params: String,
    #[tabled(rename = "TP allreduces per step")]
    tp: String,
    #[tabled(rename = "DP allreduces per step")]
    dp: String,
}

/// What the lab's loop asks of a trainer: [`GridTrainer`] (one stage) or
/// [`crate::pipeline::PipeTrainer`] (`--pp`, `--micro`).
pub trait LabTrainer {
    /// Step `step` on the batch drawn from `seed`.
    fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats;
    /// `loss` averaged over the replicas.
    fn mean_over_replicas(&self, loss: f64) -> f64;
    /// The global batch, the context, the replicas and this rank's replica.
    fn shape(&self) -> (usize, usize, usize, usize);
    /// The loss of a replica's `x`, `y`, no backward, the same on every rank of it.
    fn loss_only(&self, x: &Tensor, y: &Tensor) -> f64;
    /// The grid's layout.
    fn layout(&self) -> crate::grid::Layout;
    /// Saves a checkpoint of step `step` into `dir` (collective over `world`).
    fn save(
        &self,
        world: &SimpleCommunicator,
        dir: &std::path::Path,
        step: u64,
    ) -> Result<(), String>;
}

impl LabTrainer for GridTrainer<'_> {
    fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats {
        GridTrainer::step(self, corpus, seed, step)
    }
    fn mean_over_replicas(&self, loss: f64) -> f64 {
        GridTrainer::mean_over_replicas(self, loss)
    }
    fn shape(&self) -> (usize, usize, usize, usize) {
        let g = self.grid;
        (
            self.global_batch(),
            self.cfg.block.seq,
            g.layout.dp,
            g.me.dp,
        )
    }
    fn loss_only(&self, x: &Tensor, y: &Tensor) -> f64 {
        let (x, y) = (x.to_device(self.device()), y.to_device(self.device()));
        loss_only(&self.tp, &self.params, &self.cfg, &x, &y)
    }
    fn layout(&self) -> crate::grid::Layout {
        self.grid.layout
    }
    fn save(
        &self,
        world: &SimpleCommunicator,
        dir: &std::path::Path,
        step: u64,
    ) -> Result<(), String> {
        gpt_ckpt::save(world, self, dir, step)
    }
}

/// The validation loss over 4 validation batches (drawn from step `step`), averaged over
/// the replicas.
pub fn valid_loss(tr: &impl LabTrainer, corpus: &Corpus, seed: u64, step: u64) -> f64 {
    let (b, s, dp, me) = tr.shape();
    let rows = replica_rows(b, dp, me);
    let losses = (0..4).map(|k| {
        let (x, y) = corpus.batch(Split::Valid, seed, 4 * step + k, b, s, rows.clone());
        tr.loss_only(&x, &y)
    });
    tr.mean_over_replicas(losses.sum::<f64>() / 4.0)
}

/// Trains from step `start` to `--steps`, printing on world rank 0 (unless --quiet),
/// saving into `--checkpoint DIR` every `--every` steps and after the last; returns this
/// rank's counts of the last step.
pub fn train(
    world: &SimpleCommunicator,
    tr: &mut impl LabTrainer,
    f: &GptFlags,
    corpus: &Corpus,
    start: u64,
) -> Result<StepStats, String> {
    let head = world.rank() == 0 && !f.common.quiet;
    let seed = f.common.seed;
    let (b, s, _, _) = tr.shape();
    let tokens = (b * s) as f64;
    if head {
        println!(
            "{:>6}  {:>10}  {:>10}  {:>9}",
            "step", "train loss", "valid loss", "tokens/s"
        );
    }
    let first = valid_loss(tr, corpus, seed, start);
    if head {
        println!("{start:>6}  {:>10}  {first:>10.3}  {:>9}", "-", "-");
    }
    let (mut sum, mut k, mut since) = (0.0, 0, Instant::now());
    let mut last = StepStats::default();
    for step in start + 1..=f.steps {
        last = match (&f.trace, step == f.steps) {
            (Some(file), true) => crate::step_trace::traced(world, tr, corpus, (seed, step), file)?,
            _ => tr.step(corpus, seed, step),
        };
        (sum, k) = (sum + last.loss, k + 1);
        if step % f.log_every == 0 || step == f.steps {
            let rate = tokens * k as f64 / since.elapsed().as_secs_f64();
            let train = tr.mean_over_replicas(sum / k as f64);
            let valid = valid_loss(tr, corpus, seed, step);
            if head {
                println!("{step:>6}  {train:>10.3}  {valid:>10.3}  {rate:>9.0}");
            }
            (sum, k, since) = (0.0, 0, Instant::now());
        }
        if let Some(dir) = &f.common.checkpoint {
            if step % f.common.every == 0 || step == f.steps {
                tr.save(world, dir, step)?;
                if head {
                    println!("{step:>6}  saved into {}", dir.display());
                }
            }
        }
    }
    Ok(last)
}

/// The lab's body on every rank of `world`.
pub fn run(world: &SimpleCommunicator, f: &GptFlags, corpus: &Corpus) -> Result<(), String> {
    // --device (checked before MPI started; the pipelined GPT on the CPU); threads:
    // --threads, else this rank's cores.
    let layout = f.layout(world.size() as usize)?;
    let choice = match layout.pp > 1 || f.micro > 1 {
        true => trainer_kit::cli::DeviceChoice::Cpu,
        false => f.common.device,
    };
    let device = trainer_kit::place::place(world, choice, f.common.threads).device;
    let grid = Grid::new(world, layout);
    let cfg = f.model(corpus.vocab(), layout)?;
    let head = world.rank() == 0;
    if head {
        header(f, corpus, &grid, &cfg, device);
    }
    if layout.pp > 1 || f.micro > 1 {
        return crate::gpt_lab_pipeline::run(world, f, corpus, &grid, cfg);
    }
    let elem = Kind::Float.elt_size_in_bytes() as i64;
    let ran = toolkit::gate::unless_todo(world, || -> Result<_, String> {
        let seed = f.common.seed as i64;
        let mut tr = GridTrainer::on(&grid, cfg, Kind::Float, seed, f.common.lr, device)?;
        let start = resume(&mut tr, f, head)?;
        let last = train(world, &mut tr, f, corpus, start)?;
        let prompt = corpus.encode(&f.prompt)?;
        let text = generate(
            &tr.tp,
            &tr.params,
            &cfg,
            &prompt,
            f.sample,
            0.8,
            f.common.seed,
        );
        Ok((tr.params.numel(), last, corpus.decode(&text)))
    });
    let (numel, last, text) = ran.map_err(|task| crate::flags::not_done(&task))??;
    let mine = [
        numel as i64,
        last.tp_calls.0 as i64,
        last.tp_calls.1,
        last.dp_calls.0 as i64,
        last.dp_calls.1,
    ];
    let mut all = vec![0i64; 5 * layout.ranks()];
    world.all_gather_into(&mine[..], &mut all[..]);
    if !head {
        return Ok(());
    }
    let (tp_n, tp_elems) = gpt_tp_allreduces(&cfg);
    let rows: Vec<Row> = all
        .chunks(5)
        .enumerate()
        .map(|(rank, c)| {
            let at = layout.coords(rank);
            let rows = vocab_range(cfg.vocab, layout.tp, at.tp).len();
            let formula = gpt_params_per_rank(&cfg, layout.tp, rows);
            Row {
                rank: format!("{rank} ({}, {})", at.dp, at.tp),
                params: format!("{} (formula {formula}, V_r = {rows})", c[0]),
                tp: format!(
                    "{} calls, {} B (formula {tp_n}, {} B)",
                    c[1],
                    c[2],
                    tp_elems as i64 * elem
                ),
                dp: format!(
                    "{} call, {} B (formula 1, {} B)",
                    c[3],
                    c[4],
                    formula as i64 * elem
                ),
            }
        })
        .collect();
    println!("{}", Table::new(rows));
    println!(
        "formulas: parameters V_r h + s h + L [block's] + 2h; TP 4L + 5 allreduces, (4L + 2) n h + 3n \
         elements for n = {} tokens a replica; DP one allreduce of the shard's gradients (x {elem} B)",
        cfg.block.batch * cfg.block.seq
    );
    // Each line indented: the sample may hold the book's own code fences, and an
    // indented one closes no block of the page that shows this output.
    println!(
        "sample (temperature 0.8, seed {}), each line indented:",
        f.common.seed
    );
    for line in text.lines() {
        println!("    {line}");
    }
    Ok(())
}
