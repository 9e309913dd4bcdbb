//! Given: the pipeline trainer's command line, checked before any communication: a bad
//! setting is one line on stderr and a non-zero exit.
//!
//! The flags every trainer takes (`--batch`, `--lr`, `--seed`, `--device`, `--threads`,
//! `--checkpoint`, `--every`, `--resume`, `--quiet`) are the trainer kit's
//! (`trainer_kit::cli`); the pipeline's own are here, with [`check`], which knows what a
//! pipeline needs. `pipeline --help` lists them all with their defaults.

use crate::plan::ScheduleKind;
use crate::recompute::{Recompute, RECOMPUTE};
use crate::stage_model::Shape;
use clap::Parser;
use std::path::PathBuf;
use trainer_kit::cli::{one_of, Common, DeviceChoice};

/// Everything a pipeline training run needs to know.
#[derive(Parser, Clone, Debug)]
#[command(
    about = "Pipeline-parallel training of a residual MLP on multi-digit addition \
             (under mpirun, or re-launched with NP ranks, default 4)"
)]
pub struct PipeConfig {
    /// The task and the model.
    #[command(flatten)]
    pub shape: Shape,
    /// Micro-batches per replica per step
    #[arg(long, value_name = "M", default_value_t = 4)]
    pub micro: usize,
    /// Training steps
    #[arg(long, value_name = "N", default_value_t = 4000)]
    pub steps: u64,
    /// Plain SGD instead of Adam (the equivalence checks)
    #[arg(long)]
    pub sgd: bool,
    /// The pipeline schedule: gpipe or 1f1b
    #[arg(long, value_name = "gpipe|1f1b", value_parser = one_of("--schedule", SCHEDULES), default_value = "1f1b")]
    pub schedule: ScheduleKind,
    /// What a forward keeps for its backward: its graph (none), or only the stage's input,
    /// the backward running the forward again (stage)
    #[arg(long, value_name = "none|stage", value_parser = one_of("--recompute", RECOMPUTE), default_value = "none")]
    pub recompute: Recompute,
    /// Data-parallel pipelines, of NP/D stages each
    #[arg(long, value_name = "D", default_value_t = 1)]
    pub dp: usize,
    /// A progress line (and an evaluation) every K steps
    #[arg(long, value_name = "K", default_value_t = 500)]
    pub report: u64,
    /// One step's timeline: FILE.json (Perfetto) and FILE.svg
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The flags every trainer takes (`--checkpoint DIR`: each stage saves
    /// DIR/stage-S.ckpt).
    #[command(flatten)]
    pub common: Common,
}

// The kit's Trainer (name, defaults of the common flags, checks) and Default (no flags).
trainer_kit::trainer!(PipeConfig, name: "pipeline", check: check,
    batch: 128, lr: 2e-3, seed: 7, device: "cpu", every: 100);

impl PipeConfig {
    /// Whether the stages run on GPUs (`--device cuda`, checked: a GPU is there).
    pub fn cuda(&self) -> bool {
        self.common.device == DeviceChoice::Cuda
    }
}

/// `--schedule`'s values.
const SCHEDULES: &[(&str, ScheduleKind)] = &[
    ("gpipe", ScheduleKind::GPipe),
    ("1f1b", ScheduleKind::OneFOneB),
];

// ANCHOR: check
/// The checks that need no communication.
pub fn check(c: &PipeConfig, ranks: usize) -> Result<(), String> {
    let run = &c.common;
    if c.dp == 0 || !ranks.is_multiple_of(c.dp) {
        return Err(format!(
            "--dp {}: {ranks} ranks are not a multiple of it",
            c.dp
        ));
    }
    let stages = ranks / c.dp;
    if stages > c.shape.depth {
        return Err(format!(
            "{stages} stages but the model has {} blocks: at most one stage per block (use --depth {stages} or fewer ranks)",
            c.shape.depth
        ));
    }
    if c.micro == 0 || run.batch == 0 || !run.batch.is_multiple_of(c.dp * c.micro) {
        return Err(format!(
            "batch {} does not cut into {} replica(s) x {} micro-batches of equal size",
            run.batch, c.dp, c.micro
        ));
    }
    if c.shape.task.digits == 0 || c.shape.task.digits > 9 || c.shape.width <= 0 {
        return Err("--digits must be 1..=9 and --width positive".into());
    }
    if c.cuda() {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    if run.resume && run.checkpoint.is_none() {
        return Err("--resume needs --checkpoint DIR".into());
    }
    if run.every == 0 || c.report == 0 {
        return Err("--every and --report must be at least 1".into());
    }
    Ok(())
}
// ANCHOR_END: check
