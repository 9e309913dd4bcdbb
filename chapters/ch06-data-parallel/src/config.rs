//! Given: the trainer's command line, parsed with std only, checked before any
//! communication: a bad flag is one line on stderr and a non-zero exit.
//!
//! `train --help` lists the flags; the defaults train the CNN on the shipped digits.

use crate::model::ModelKind;
use crate::shuffle::Remainder;
use std::path::PathBuf;

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

/// `--device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    Auto,
    Cpu,
    Cuda,
}

/// Everything a training run needs to know.
#[derive(Clone, Debug)]
pub struct Config {
    pub model: ModelKind,
    pub data: DataSource,
    pub epochs: u64,
    /// The global batch: the sum of the per-rank batches.
    pub batch: usize,
    pub lr: f64,
    pub momentum: f64,
    pub seed: u64,
    pub sync: SyncMode,
    pub allreduce: Backend,
    pub bucket_kib: usize,
    pub remainder: Remainder,
    pub device: DeviceChoice,
    /// The MPI library reads GPU memory itself (CUDA-aware): no host staging.
    pub cuda_aware: bool,
    /// Threads per rank; `None`: cores / ranks on this node.
    pub threads: Option<usize>,
    pub checkpoint: Option<PathBuf>,
    /// Save a checkpoint every this many steps.
    pub every: u64,
    pub resume: bool,
    /// Stop after this many steps in total (tests and benchmarks).
    pub max_steps: Option<u64>,
    /// No per-epoch lines or progress (tests).
    pub quiet: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            model: ModelKind::Cnn,
            data: DataSource::Digits,
            epochs: 15,
            batch: 64,
            lr: 0.05,
            momentum: 0.9,
            seed: 6,
            sync: SyncMode::Bucketed,
            allreduce: Backend::Mpi,
            bucket_kib: 64,
            remainder: Remainder::Pad,
            device: DeviceChoice::Auto,
            cuda_aware: false,
            threads: None,
            checkpoint: None,
            every: 50,
            resume: false,
            max_steps: None,
            quiet: false,
        }
    }
}

/// The flags, for `--help`.
pub const USAGE: &str = "\
usage: train [flags]           (under mpirun, or re-launched with NP ranks, default 4)
  --model mlp|cnn|deep-mlp[:N]   the model (default cnn)
  --data DIR                     MNIST idx files in DIR (default: the shipped UCI digits)
  --epochs N                     epochs (default 15)
  --batch GLOBAL                 global batch, a multiple of the ranks (default 64)
  --lr X --momentum X            SGD with momentum (default 0.05, 0.9)
  --seed N                       shared seed of the sampler, rank 0's init (default 6)
  --sync per-tensor|bucketed|overlap   gradient sync (default bucketed)
  --allreduce mpi|ring           MPI_Allreduce (default) or chapter 3's ring
  --bucket-kib N                 bucket cap in KiB (default 64)
  --remainder pad|drop           samples left over by the ranks (default pad)
  --device auto|cpu|cuda         auto: the GPU of the local rank if there is one
  --cuda-aware                   the MPI reads GPU memory: no staging through the host
  --threads N                    threads per rank (default cores / ranks on the node)
  --checkpoint FILE --every K    rank 0 saves every K steps (default 50)
  --resume                       continue from --checkpoint FILE
  --max-steps N --quiet          stop early; no per-epoch lines";

// ANCHOR: parse
/// Parses the flags after the program name and checks them against `ranks` (the global
/// batch must split evenly). The `Err` is the one line to print.
pub fn parse(args: &[String], ranks: usize) -> Result<Config, String> {
    let mut c = Config::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => c.model = ModelKind::parse(value()?)?,
            "--data" => c.data = DataSource::Mnist(PathBuf::from(value()?)),
            "--epochs" => c.epochs = number(flag, value()?)?,
            "--batch" => c.batch = number(flag, value()?)?,
            "--lr" => c.lr = number(flag, value()?)?,
            "--momentum" => c.momentum = number(flag, value()?)?,
            "--seed" => c.seed = number(flag, value()?)?,
            "--bucket-kib" => c.bucket_kib = number(flag, value()?)?,
            "--threads" => c.threads = Some(number(flag, value()?)?),
            "--checkpoint" => c.checkpoint = Some(PathBuf::from(value()?)),
            "--every" => c.every = number(flag, value()?)?,
            "--max-steps" => c.max_steps = Some(number(flag, value()?)?),
            "--cuda-aware" => c.cuda_aware = true,
            "--resume" => c.resume = true,
            "--quiet" => c.quiet = true,
            "--sync" => {
                c.sync = match value()?.as_str() {
                    "per-tensor" => SyncMode::PerTensor,
                    "bucketed" => SyncMode::Bucketed,
                    "overlap" => SyncMode::Overlap,
                    s => {
                        return Err(format!(
                            "unknown --sync `{s}` (per-tensor|bucketed|overlap)"
                        ))
                    }
                }
            }
            "--allreduce" => {
                c.allreduce = match value()?.as_str() {
                    "mpi" => Backend::Mpi,
                    "ring" => Backend::Ring,
                    s => return Err(format!("unknown --allreduce `{s}` (mpi|ring)")),
                }
            }
            "--remainder" => {
                c.remainder = match value()?.as_str() {
                    "pad" => Remainder::Pad,
                    "drop" => Remainder::Drop,
                    s => return Err(format!("unknown --remainder `{s}` (pad|drop)")),
                }
            }
            "--device" => {
                c.device = match value()?.as_str() {
                    "auto" => DeviceChoice::Auto,
                    "cpu" => DeviceChoice::Cpu,
                    "cuda" => DeviceChoice::Cuda,
                    s => return Err(format!("unknown device `{s}` (expected auto, cpu or cuda)")),
                }
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    check(&c, ranks)?;
    Ok(c)
}
// ANCHOR_END: parse

/// The checks that need no data and no communication.
pub fn check(c: &Config, ranks: usize) -> Result<(), String> {
    if c.batch == 0 || !c.batch.is_multiple_of(ranks) {
        return Err(format!(
            "global batch {} does not split over {ranks} ranks: use a multiple of {ranks}",
            c.batch
        ));
    }
    if let DataSource::Mnist(dir) = &c.data {
        if !dir.is_dir() {
            return Err(format!("--data {}: no such folder", dir.display()));
        }
    }
    if c.device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    if c.resume && c.checkpoint.is_none() {
        return Err("--resume needs --checkpoint FILE".into());
    }
    if c.allreduce == Backend::Ring && (c.sync == SyncMode::Overlap || c.cuda_aware) {
        return Err(
            "--allreduce ring runs with --sync per-tensor|bucketed on host buffers \
                    (overlap and --cuda-aware use MPI's own allreduce)"
                .into(),
        );
    }
    if c.every == 0 {
        return Err("--every must be at least 1".into());
    }
    Ok(())
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag}: `{v}` is not a valid number"))
}
