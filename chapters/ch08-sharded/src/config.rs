//! Given: the `zero` lab's command line, checked before any communication: a bad flag is
//! one line on stderr and a non-zero exit.
//!
//! The flags every trainer takes are the trainer kit's (`trainer_kit::cli`); this lab's
//! own are here. `zero --help` lists them all with their defaults.

use crate::memory::Stage;
use crate::sharded_ckpt::CheckpointFormat;
use crate::shards::Layout;
use ch06::model::ModelKind;
use clap::Parser;
use trainer_kit::cli::{one_of, Common, DeviceChoice};

/// `--collectives`: what the step's reduce-scatter and allgather run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collectives {
    /// Chapter 3's ring halves: point-to-point messages the PMPI recorder counts.
    Ring,
    /// MPI_Reduce_scatter_block and MPI_Allgather (your ex 8.2), MPI_Allreduce at stage 0.
    Mpi,
}

/// Everything a run of the lab needs to know.
#[derive(Parser, Clone, Debug)]
#[command(
    about = "Sharded data parallelism (ZeRO-1, ZeRO-2, ZeRO-3) on the UCI digits: what each rank \
             holds and sends (under mpirun, or re-launched with NP ranks, default 4)"
)]
pub struct Config {
    /// 0: plain data parallelism; 1: ZeRO-1 (Adam's state sharded); 2: ZeRO-2 (gradients
    /// too); 3: ZeRO-3 (parameters too, gathered one layer at a time)
    #[arg(long, value_name = "0|1|2|3", value_parser = one_of("--stage", STAGES), default_value = "2")]
    pub stage: Stage,
    /// Chapter 6's model: mlp, cnn, cnn:K or deep-mlp[:N]
    #[arg(long, value_name = "MODEL", value_parser = ModelKind::parse, default_value = "cnn")]
    pub model: ModelKind,
    /// ring: chapter 3's halves (their bytes counted); mpi: MPI's own collectives
    #[arg(long, value_name = "ring|mpi", value_parser = one_of("--collectives", COLLECTIVES), default_value = "ring")]
    pub collectives: Collectives,
    /// Epochs
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub epochs: u64,
    /// Stop after this many steps in total (tests)
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Stage 3: post the next layer's allgather (MPI_Iallgather) before this layer
    /// computes; needs --collectives mpi
    #[arg(long, value_name = "on|off", value_parser = one_of("--prefetch", ON_OFF), default_value = "off", action = clap::ArgAction::Set)]
    pub prefetch: bool,
    /// Refuse to start unless the stage fits in this many bytes per rank (the trainer's
    /// accounting: parameters, gradients, Adam's m and v, gathered layers)
    #[arg(long, value_name = "BYTES")]
    pub max_mem: Option<usize>,
    /// After training, each rank's mean step time and the part of it spent inside the
    /// step's collectives (stages 0 to 2 on the CPU)
    #[arg(long)]
    pub profile: bool,
    /// Print every step's loss (the mean over ranks, to the last digit): two runs compared
    /// step by step (chapter 15's elastic restart)
    #[arg(long)]
    pub losses: bool,
    /// shards: a file per rank and a manifest; one-file: one file, every rank its part
    /// (MPI-IO)
    #[arg(long, value_name = "FORMAT", value_parser = one_of("--checkpoint-format", FORMATS), default_value = "shards")]
    pub checkpoint_format: CheckpointFormat,
    /// The flags every trainer takes (`--lr`: Adam's learning rate; `--checkpoint DIR`:
    /// each rank saves its shard there, rank 0 a manifest; `--resume` loads it at any N,
    /// at a stage of the same kind: 0 to 2, or 3)
    #[command(flatten)]
    pub common: Common,
}

// The kit's Trainer (name, defaults of the common flags, checks) and Default (no flags).
trainer_kit::trainer!(Config, name: "zero", check: check,
    batch: 48, lr: 0.001, seed: 8, device: "cpu", every: 50);

/// `--stage`'s values.
const STAGES: &[(&str, Stage)] = &[
    ("0", Stage::Replicated),
    ("1", Stage::Zero1),
    ("2", Stage::Zero2),
    ("3", Stage::Zero3),
];
/// `--prefetch`'s values.
const ON_OFF: &[(&str, bool)] = &[("on", true), ("off", false)];
/// `--checkpoint-format`'s values.
const FORMATS: &[(&str, CheckpointFormat)] = &[
    ("shards", CheckpointFormat::Shards),
    ("one-file", CheckpointFormat::OneFile),
];
/// `--collectives`' values.
const COLLECTIVES: &[(&str, Collectives)] =
    &[("ring", Collectives::Ring), ("mpi", Collectives::Mpi)];

/// Parameters of `kind` for the digits' 8x8 images (builds it once, on the CPU).
pub fn parameter_count(kind: ModelKind) -> usize {
    let vs = tch::nn::VarStore::new(tch::Device::Cpu);
    let _model = ch06::model::build(&vs.root(), kind, (8, 8));
    vs.variables().values().map(tch::Tensor::numel).sum()
}

/// The checks that need no communication.
pub fn check(c: &Config, ranks: usize) -> Result<(), String> {
    let run = &c.common;
    run.batch_per_rank(ranks)?;
    if run.device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    let gpu = match run.device {
        DeviceChoice::Cpu => false,
        DeviceChoice::Cuda => true,
        DeviceChoice::Auto => tch::Cuda::is_available(),
    };
    if gpu && (run.checkpoint.is_some() || run.resume) {
        return Err(
            "--checkpoint, --resume: sharded checkpoints read and write host \
                    buffers; save and resume with --device cpu"
                .into(),
        );
    }
    if run.every == 0 {
        return Err("--every must be at least 1".into());
    }
    if run.resume {
        // Every rank reads the same files here, before MPI starts: one verdict for all.
        let dir = run
            .checkpoint
            .as_ref()
            .ok_or("--resume needs --checkpoint DIR")?;
        let (model, _) = crate::sharded_ckpt::model_id(c.model);
        let units = crate::sharded_ckpt::units_of(c.model, c.stage);
        crate::ckpt_read::check(c.checkpoint_format, dir, &model, &units)
            .map_err(|e| format!("--resume: {e}"))?;
    }
    if c.epochs == 0 || c.max_steps == Some(0) {
        return Err("--epochs and --max-steps must be at least 1".into());
    }
    if c.prefetch && (c.stage != Stage::Zero3 || c.collectives != Collectives::Mpi) {
        return Err(
            "--prefetch on: only stage 3 gathers layers, with MPI's non-blocking allgather: \
             add --stage 3 --collectives mpi"
                .into(),
        );
    }
    Layout::check(parameter_count(c.model), ranks)?;
    match c.max_mem {
        Some(max) => crate::budget::check(c.model, c.stage, ranks, c.prefetch, max),
        None => Ok(()),
    }
}
