//! Given: the trainer's command line, checked before any communication: a bad flag is one
//! line on stderr and a non-zero exit.
//!
//! The flags every trainer takes (`--batch`, `--lr`, `--seed`, `--device`, `--threads`,
//! `--checkpoint`, `--every`, `--resume`, `--quiet`) are the trainer kit's
//! (`trainer_kit::cli`, with clap); this chapter's own are here, with [`check`], which
//! knows what data parallelism needs. `train --help` lists them all with their defaults;
//! the defaults train the CNN on the shipped digits.

use crate::model::ModelKind;
use crate::shuffle::Remainder;
use clap::Parser;
use std::path::PathBuf;
use trainer_kit::cli::{one_of, Common};

pub use trainer_kit::cli::DeviceChoice;

/// Where the data comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum DataSource {
    /// The shipped UCI digits (data/digits).
    Digits,
    /// MNIST idx files in this folder.
    Mnist(PathBuf),
}

/// How gradients are synchronised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// One allreduce per parameter tensor (ex 6.4).
    PerTensor,
    /// Flat buckets, one allreduce each (ex 6.5).
    Bucketed,
    /// Buckets with non-blocking allreduces overlapped with packing (`overlap.rs`).
    Overlap,
}

/// `--allreduce`: which allreduce the blocking syncs (per-tensor, bucketed) run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// MPI_Allreduce (the default).
    Mpi,
    /// Chapter 3's ring allreduce: your ex 3.1 + 3.2 (or their solutions with
    /// `--features solution`).
    Ring,
}

/// Everything a training run needs to know.
#[derive(Parser, Clone, Debug)]
#[command(about = "Data-parallel training on the UCI digits or MNIST \
             (under mpirun, or re-launched with NP ranks, default 4)")]
pub struct Config {
    /// The model: mlp, cnn, cnn:K (K times wider, for a GPU) or deep-mlp[:N]
    #[arg(long, value_name = "MODEL", value_parser = ModelKind::parse, default_value = "cnn")]
    pub model: ModelKind,
    /// MNIST idx files in DIR [default: the shipped UCI digits]
    #[arg(long = "data", value_name = "DIR")]
    pub mnist: Option<PathBuf>,
    /// Epochs
    #[arg(long, value_name = "N", default_value_t = 15)]
    pub epochs: u64,
    /// SGD's momentum
    #[arg(long, value_name = "X", default_value_t = 0.9)]
    pub momentum: f64,
    /// Gradient sync: per-tensor, bucketed or overlap
    #[arg(long, value_name = "MODE", value_parser = one_of("--sync", SYNC), default_value = "bucketed")]
    pub sync: SyncMode,
    /// MPI_Allreduce, or chapter 3's ring
    #[arg(long, value_name = "mpi|ring", value_parser = one_of("--allreduce", BACKEND), default_value = "mpi")]
    pub allreduce: Backend,
    /// Bucket cap in KiB
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub bucket_kib: usize,
    /// Samples left over by the ranks
    #[arg(long, value_name = "pad|drop", value_parser = one_of("--remainder", REMAINDER), default_value = "pad")]
    pub remainder: Remainder,
    /// The MPI reads GPU memory (CUDA-aware): no staging through the host
    #[arg(long)]
    pub cuda_aware: bool,
    /// Stop after this many steps in total (tests and benchmarks)
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// The flags every trainer takes (`--checkpoint FILE`: rank 0 saves there; `--lr`,
    /// `--momentum`: SGD with momentum).
    #[command(flatten)]
    pub common: Common,
}

// The kit's Trainer (name, defaults of the common flags, checks) and Default (no flags).
trainer_kit::trainer!(Config, name: "train", check: check,
    batch: 64, lr: 0.05, seed: 6, device: "auto", every: 50);

impl Config {
    /// Where the data comes from (`--data DIR`, else the shipped digits).
    pub fn data(&self) -> DataSource {
        self.mnist
            .clone()
            .map_or(DataSource::Digits, DataSource::Mnist)
    }
}

/// `--sync`'s values.
const SYNC: &[(&str, SyncMode)] = &[
    ("per-tensor", SyncMode::PerTensor),
    ("bucketed", SyncMode::Bucketed),
    ("overlap", SyncMode::Overlap),
];
/// `--allreduce`'s values.
const BACKEND: &[(&str, Backend)] = &[("mpi", Backend::Mpi), ("ring", Backend::Ring)];
/// `--remainder`'s values.
const REMAINDER: &[(&str, Remainder)] = &[("pad", Remainder::Pad), ("drop", Remainder::Drop)];

/// The checks that need no data and no communication.
pub fn check(c: &Config, ranks: usize) -> Result<(), String> {
    let run = &c.common;
    run.batch_per_rank(ranks)?;
    if let DataSource::Mnist(dir) = c.data() {
        if !dir.is_dir() {
            return Err(format!("--data {}: no such folder", dir.display()));
        }
    }
    if run.device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    if run.resume && run.checkpoint.is_none() {
        return Err("--resume needs --checkpoint FILE".into());
    }
    if c.allreduce == Backend::Ring && (c.sync == SyncMode::Overlap || c.cuda_aware) {
        return Err(
            "--allreduce ring runs with --sync per-tensor|bucketed on host buffers \
                    (overlap and --cuda-aware use MPI's own allreduce)"
                .into(),
        );
    }
    if run.every == 0 {
        return Err("--every must be at least 1".into());
    }
    Ok(())
}
