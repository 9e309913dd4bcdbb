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
    /// The pipeline schedule: gpipe or 1f1b (one stage per rank), interleaved (1F1B over
    /// --chunks stages per rank) or zb-h1 (1F1B with each backward split, zero-bubble H1)
    #[arg(long, value_name = "gpipe|1f1b|interleaved|zb-h1", value_parser = one_of("--schedule", SCHEDULES), default_value = "1f1b")]
    pub schedule: TrainSchedule,
    /// Model chunks per rank with --schedule interleaved (at least 2; 2 if not given):
    /// the blocks cut into V x stages chunks, chunk c of stage s holding part c x stages + s
    #[arg(long, value_name = "V")]
    pub chunks: Option<usize>,
    /// What a forward keeps for its backward: its graph (none), or only the stage's input,
    /// the backward running the forward again (stage)
    #[arg(long, value_name = "none|stage", value_parser = one_of("--recompute", RECOMPUTE), default_value = "none")]
    pub recompute: Recompute,
    /// How micro-batches move between stages: mpi (ex 7.2's messages, staged through host
    /// memory), shm (node-local: slots in an MPI-3 shared-memory window, MPI carrying only
    /// doorbells and acks) or ipc (node-local on GPUs: CUDA IPC, device to device)
    #[arg(long, value_name = "mpi|shm|ipc", value_parser = one_of("--transport", TRANSPORTS), default_value = "mpi")]
    pub transport: Transport,
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

/// The trainer's schedules: a per-stage schedule (one stage per rank, run by ex 7.5's
/// executor) or a plan by rank (ex 7.7, 7.8, run by ex 7.9's executor).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TrainSchedule {
    /// GPipe or 1F1B, one stage per rank.
    Stages(ScheduleKind),
    /// Interleaved 1F1B (ex 7.7), `--chunks` stages per rank.
    Interleaved,
    /// ZB-H1 (ex 7.8), one stage per rank, each backward split in two.
    ZbH1,
}

impl From<ScheduleKind> for TrainSchedule {
    fn from(kind: ScheduleKind) -> Self {
        TrainSchedule::Stages(kind)
    }
}

impl std::fmt::Debug for TrainSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainSchedule::Stages(kind) => kind.fmt(f),
            TrainSchedule::Interleaved => f.write_str("Interleaved1F1B"),
            TrainSchedule::ZbH1 => f.write_str("ZbH1"),
        }
    }
}

/// `--transport`'s values: how micro-batches move between neighbouring stages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Transport {
    /// MPI messages (ex 7.2), staged through host memory (pinned for GPU tensors).
    Mpi,
    /// Node-local slots in an MPI-3 shared-memory window; doorbells and acks over MPI.
    Shm,
    /// Node-local slots in GPU memory opened by CUDA IPC; doorbells and acks over MPI.
    Ipc,
}

/// `--transport`'s values.
pub const TRANSPORTS: &[(&str, Transport)] = &[
    ("mpi", Transport::Mpi),
    ("shm", Transport::Shm),
    ("ipc", Transport::Ipc),
];

/// `--schedule`'s values.
const SCHEDULES: &[(&str, TrainSchedule)] = &[
    ("gpipe", TrainSchedule::Stages(ScheduleKind::GPipe)),
    ("1f1b", TrainSchedule::Stages(ScheduleKind::OneFOneB)),
    ("interleaved", TrainSchedule::Interleaved),
    ("zb-h1", TrainSchedule::ZbH1),
];

impl PipeConfig {
    /// Model chunks per rank: `--chunks` (2 if not given) with interleaved, else 1.
    pub fn chunks(&self) -> usize {
        match self.schedule {
            TrainSchedule::Interleaved => self.chunks.unwrap_or(2),
            _ => self.chunks.unwrap_or(1),
        }
    }
}

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
    let v = c.chunks();
    match c.schedule {
        TrainSchedule::Interleaved if v < 2 => {
            return Err(format!(
                "--chunks {v}: interleaved needs at least 2 chunks per rank"
            ));
        }
        TrainSchedule::Stages(_) | TrainSchedule::ZbH1 if v != 1 => {
            return Err(format!(
                "--chunks {v}: only --schedule interleaved holds several chunks per rank"
            ));
        }
        TrainSchedule::Stages(_) => {}
        _ if c.recompute != Recompute::None => {
            return Err("--recompute stage runs with --schedule gpipe or 1f1b only".into());
        }
        _ => {}
    }
    let stages = v * ranks / c.dp;
    if stages > c.shape.depth {
        let chunks = match v {
            1 => String::new(),
            _ => format!(" ({} ranks x {v} chunks)", ranks / c.dp),
        };
        return Err(format!(
            "{stages} stages{chunks} but the model has {} blocks: at most one stage per block (use --depth {stages} or fewer ranks)",
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
    check_transport(c)?;
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

/// `--transport`: the node-local ones need one stream per direction between neighbours,
/// consumed in the order it was sent (GPipe, 1F1B); `ipc` needs GPUs and CUDA IPC.
fn check_transport(c: &PipeConfig) -> Result<(), String> {
    let name = match c.transport {
        Transport::Mpi => return Ok(()),
        Transport::Shm => "shm",
        Transport::Ipc => "ipc",
    };
    let why = match c.schedule {
        TrainSchedule::Stages(_) => None,
        TrainSchedule::Interleaved => Some(
            "interleaved holds several stages per rank, so two ranks exchange several streams each way and the last rank sends to the first",
        ),
        TrainSchedule::ZbH1 => Some(
            "zb-h1 runs on ex 7.9's executor (split backwards), which the node-local link does not serve",
        ),
    };
    if let Some(why) = why {
        return Err(format!(
            "--transport {name} runs with --schedule gpipe or 1f1b only (one stream each way between neighbours, received in order): {why}"
        ));
    }
    if c.transport == Transport::Ipc {
        trainer_kit::cuda_ipc::Runtime::load().map_err(|why| format!("--transport ipc: {why}"))?;
        if !c.cuda() {
            return Err("--transport ipc moves GPU memory: it needs --device cuda".into());
        }
    }
    Ok(())
}
