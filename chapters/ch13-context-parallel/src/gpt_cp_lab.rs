//! Given: the lab `gpt_cp`: chapter 9's GPT on the book's pages with its sequence split
//! over `--cp` ranks (`--attention`: ring, zig-zag ring or Ulysses inside), composed with
//! chapter 9's `--dp`, `--tp` and `--pp`; its flags, checked before MPI starts, and its
//! body.

use crate::context::{Attention, CpContext};
use crate::gpt_cp::{CpGrid, CpLayout, CpTrainer};
use ch09::corpus::Corpus;
use ch09::gpt::GptConfig;
use ch09::gpt_flags::GptFlags;
use ch09::gpt_lab::{train, LabTrainer};
use ch09::gpt_lab_start::resume;
use ch09::pipeline::PipeTrainer;
use ch09::train::{GridTrainer, StepStats};
use clap::{Parser, ValueEnum};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Kind;
use trainer_kit::cli::{DeviceChoice, Trainer};

/// The lab's command line: chapter 9's `gpt` flags, and the CP group's size.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    about = "Chapter 9's GPT with its sequence split over --cp ranks (ring, zig-zag ring \
             or Ulysses attention), composed with --dp, --tp and --pp",
    after_help = "Ranks = cp x dp x tp x pp, placed tp-cp-dp-pp (TP innermost). Checkpoints \
                  (--checkpoint DIR) are chapter 9's: --resume reads them at any --cp and grid."
)]
pub struct GptCpFlags {
    #[command(flatten)]
    pub gpt: GptFlags,
    /// Context-parallel ranks: each holds seq / C tokens of every sequence
    #[arg(long, value_name = "C", default_value_t = 2)]
    pub cp: usize,
    /// How the CP ranks attend over the whole sequence
    #[arg(long, value_enum, default_value_t = Attention::Ring)]
    pub attention: Attention,
}

trainer_kit::trainer!(GptCpFlags, name: "gpt_cp", check: check,
    batch: 16, lr: 0.003, seed: 9, device: "cpu", every: 50, common: gpt.common);

impl GptCpFlags {
    /// The four axes over `ranks` (`--cp` divides them; chapter 9's flags lay out the
    /// ranks of each CP position).
    pub fn layout(&self, ranks: usize) -> Result<CpLayout, String> {
        let cp = self.cp;
        if cp == 0 || !ranks.is_multiple_of(cp) {
            // The divisor of the ranks nearest to --cp (above 1 where the ranks allow).
            let divisors = (2..=ranks).filter(|d| ranks.is_multiple_of(*d));
            let fits = divisors.min_by_key(|d| d.abs_diff(cp)).unwrap_or(1);
            return Err(format!(
                "--cp {cp} does not divide the job's {ranks} ranks (e.g. --cp {fits})"
            ));
        }
        let grid = self
            .gpt
            .layout(ranks / cp)
            .map_err(|why| at_position(&why, cp, ranks))?;
        Ok(CpLayout { cp, grid })
    }
}

/// Chapter 9's refusal `why`, said of one CP position's ranks.
fn at_position(why: &str, cp: usize, ranks: usize) -> String {
    format!(
        "{why}, at each of the --cp {cp} positions ({} of the {ranks} ranks)",
        ranks / cp
    )
}

/// The checks that need no communication: one line each.
fn check(f: &GptCpFlags, ranks: usize) -> Result<(), String> {
    let (cp, seq) = (f.cp, f.gpt.seq);
    let layout = f.layout(ranks)?;
    if seq == 0 || !seq.is_multiple_of(cp) {
        // A length the zig-zag layout also takes (two chunks a rank), where it is asked for.
        let unit = if f.attention == Attention::Zigzag {
            2 * cp
        } else {
            cp
        };
        let up = seq.div_ceil(unit).max(1) * unit;
        return Err(format!(
            "--seq {seq} does not split over --cp {cp}: each rank holds seq / cp tokens (e.g. --seq {up})"
        ));
    }
    if f.gpt.common.device == DeviceChoice::Cuda {
        return Err(
            "--device cuda: the ring's blocks travel through host memory in f64; \
                    the context-parallel GPT trains on the CPU (--device cpu)"
                .into(),
        );
    }
    if f.gpt.trace.is_some() {
        return Err("--trace: chapter 9's trace draws DP, TP and PP only; run without it".into());
    }
    fits_attention(f, layout)?;
    <GptFlags as Trainer>::check(&f.gpt, layout.grid.ranks())
        .map_err(|why| at_position(&why, cp, ranks))
}

/// What the zig-zag layout and Ulysses ask beyond `seq % cp == 0`: two chunks per rank,
/// and the heads of each TP rank split over the CP ranks (heads that TP cannot split are
/// chapter 9's check's to refuse).
fn fits_attention(f: &GptCpFlags, layout: CpLayout) -> Result<(), String> {
    let (cp, seq, heads, tp) = (f.cp, f.gpt.seq, f.gpt.heads, layout.grid.tp);
    match f.attention {
        Attention::Zigzag if !seq.is_multiple_of(2 * cp) => {
            let up = seq.div_ceil(2 * cp) * 2 * cp;
            Err(format!(
                "--seq {seq} does not split into 2 x --cp {cp} chunks: the zig-zag layout gives \
                 each rank two chunks of seq / 2cp tokens (e.g. --seq {up})"
            ))
        }
        Attention::Ulysses if heads.is_multiple_of(tp) && !(heads / tp).is_multiple_of(cp) => {
            let hidden = f.gpt.hidden;
            let fits = (1..=hidden)
                .filter(|h| hidden.is_multiple_of(*h) && h.is_multiple_of(tp * cp))
                .min_by_key(|h| h.abs_diff(heads));
            let instead = match fits {
                Some(h) => format!("--heads {h}"),
                None => "--attention ring".into(),
            };
            Err(format!(
                "--attention ulysses: the {} heads of each TP rank (--heads {heads} over tp \
                 {tp}) do not split over --cp {cp}: each CP rank attends with heads / (tp x cp) \
                 of them (e.g. {instead})",
                heads / tp
            ))
        }
        _ => Ok(()),
    }
}

/// The run's first lines.
fn header(f: &GptCpFlags, corpus: &Corpus, layout: CpLayout, cfg: &GptConfig) {
    let (b, g) = (&cfg.block, layout.grid);
    println!(
        "gpt_cp: {} book pages; V = {} characters (ln V = {:.3}); {} blocks, h = {}, {} heads, context {}; f32, Adam lr {}",
        corpus.pages, corpus.vocab(), (corpus.vocab() as f64).ln(),
        cfg.layers, b.hidden, b.heads, b.seq, f.gpt.common.lr
    );
    println!(
        "grid: cp {} x dp {} x tp {} x pp {} over {} ranks (tp-cp-dp-pp); each rank holds {} of the {} tokens of every sequence; global batch {}",
        layout.cp, g.dp, g.tp, g.pp, layout.ranks(), b.seq / layout.cp, b.seq, b.batch * g.dp
    );
    let [fwd, bwd] = f.attention.exercises();
    println!(
        "attention over the CP group: {} (ex {fwd} forward, ex {bwd} backward)",
        f.attention
            .to_possible_value()
            .expect("a named value")
            .get_name()
    );
}

/// Trains `inner` (resumed from `--resume` first) under the CP grid; its last step.
fn run_one<T>(
    world: &SimpleCommunicator,
    mut inner: T,
    grid: &CpGrid,
    f: &GptFlags,
    corpus: &Corpus,
) -> Result<StepStats, String>
where
    T: LabTrainer + ch09::gpt_ckpt_state::Checkpointed,
{
    let start = resume(&mut inner, f, world.rank() == 0)?;
    let mut tr = CpTrainer { inner, grid };
    train(world, &mut tr, f, corpus, start)
}

/// The lab's body on every rank of `world`.
pub fn run(world: &SimpleCommunicator, f: &GptCpFlags, corpus: &Corpus) -> Result<(), String> {
    tch::set_num_threads(1);
    let layout = f.layout(world.size() as usize)?;
    let grid = CpGrid::new(world, layout);
    let g = &f.gpt;
    let cfg = g.model(corpus.vocab(), layout.grid)?;
    if world.rank() == 0 {
        header(f, corpus, layout, &cfg);
    }
    let context = CpContext::new(&grid.cp, f.attention);
    let (seed, lr) = (g.common.seed as i64, g.common.lr);
    let ran = toolkit::gate::unless_todo(world, || -> Result<StepStats, String> {
        match layout.grid.pp > 1 || g.micro > 1 {
            true => {
                let mut tr = PipeTrainer::new(&grid.grid, cfg, g.micro, Kind::Float, seed, lr)?;
                (tr.tp, tr.dp) = (grid.tp(&context), grid.data_group());
                run_one(world, tr, &grid, g, corpus)
            }
            false => {
                let mut tr = GridTrainer::new(&grid.grid, cfg, Kind::Float, seed, lr)?;
                (tr.tp, tr.dp) = (grid.tp(&context), grid.data_group());
                run_one(world, tr, &grid, g, corpus)
            }
        }
    });
    let last = match ran {
        Err(task) => toolkit::gate::stop_unfinished(world, "gpt_cp", &task),
        Ok(last) => last?,
    };
    if world.rank() == 0 {
        println!(
            "rank 0's last step: {} TP allreduces ({} B), {} over the dp x cp data group ({} B)",
            last.tp_calls.0, last.tp_calls.1, last.dp_calls.0, last.dp_calls.1
        );
    }
    Ok(())
}
