//! Given: the pipeline trainer's command line, checked before any communication: a bad
//! setting is one line on stderr and a non-zero exit.

use crate::addition::Addition;
use crate::plan::Kind;
use crate::stage_model::Shape;
use std::path::PathBuf;

/// Everything a pipeline training run needs to know.
#[derive(Clone, Debug)]
pub struct PipeConfig {
    pub shape: Shape,
    /// The global batch (over all data-parallel replicas).
    pub batch: usize,
    /// Micro-batches per replica per step.
    pub micro: usize,
    pub steps: u64,
    pub lr: f64,
    /// Plain SGD instead of Adam (the equivalence checks).
    pub sgd: bool,
    pub schedule: Kind,
    /// Data-parallel replicas; stages = ranks / dp.
    pub dp: usize,
    pub seed: u64,
    pub cuda: bool,
    /// Steps between progress lines (and evaluations).
    pub report: u64,
    pub checkpoint: Option<PathBuf>,
    pub every: u64,
    pub resume: bool,
    pub trace: Option<PathBuf>,
    pub quiet: bool,
}

impl Default for PipeConfig {
    fn default() -> Self {
        PipeConfig {
            shape: Shape {
                task: Addition { digits: 3 },
                width: 96,
                depth: 8,
            },
            batch: 128,
            micro: 4,
            steps: 4000,
            lr: 2e-3,
            sgd: false,
            schedule: Kind::OneFOneB,
            dp: 1,
            seed: 7,
            cuda: false,
            report: 500,
            checkpoint: None,
            every: 100,
            resume: false,
            trace: None,
            quiet: false,
        }
    }
}

/// The flags, for `--help`.
pub const USAGE: &str = "\
usage: train [flags]            (under mpirun, or re-launched with NP ranks, default 4)
  --digits D --width W --depth L   the task and the model (default 3, 96, 8 blocks)
  --batch B --micro M              global batch, micro-batches per replica (128, 4)
  --steps N --lr X --sgd           steps (4000), Adam's learning rate (0.002); plain SGD
  --schedule gpipe|1f1b            the pipeline schedule (default 1f1b)
  --dp D                           D data-parallel pipelines of NP/D stages (default 1)
  --device cpu|cuda                cuda: each stage on the GPU of its local rank
  --seed N --report K              seed (7); a progress line every K steps (500)
  --checkpoint DIR --every K       each stage saves DIR/stage-S.ckpt every K steps
  --resume                         continue from --checkpoint DIR
  --trace FILE                     one step's timeline: FILE.json (Perfetto) and FILE.svg
  --quiet                          no progress lines";

/// Parses the flags and checks them against `ranks`. The `Err` is the one line to print.
pub fn parse(args: &[String], ranks: usize) -> Result<PipeConfig, String> {
    let mut c = PipeConfig::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--digits" => c.shape.task.digits = number(flag, value()?)?,
            "--width" => c.shape.width = number(flag, value()?)?,
            "--depth" => c.shape.depth = number(flag, value()?)?,
            "--batch" => c.batch = number(flag, value()?)?,
            "--micro" => c.micro = number(flag, value()?)?,
            "--steps" => c.steps = number(flag, value()?)?,
            "--lr" => c.lr = number(flag, value()?)?,
            "--dp" => c.dp = number(flag, value()?)?,
            "--seed" => c.seed = number(flag, value()?)?,
            "--report" => c.report = number(flag, value()?)?,
            "--every" => c.every = number(flag, value()?)?,
            "--checkpoint" => c.checkpoint = Some(PathBuf::from(value()?)),
            "--trace" => c.trace = Some(PathBuf::from(value()?)),
            "--sgd" => c.sgd = true,
            "--resume" => c.resume = true,
            "--quiet" => c.quiet = true,
            "--schedule" => {
                c.schedule = match value()?.as_str() {
                    "gpipe" => Kind::GPipe,
                    "1f1b" => Kind::OneFOneB,
                    s => return Err(format!("unknown --schedule `{s}` (gpipe|1f1b)")),
                }
            }
            "--device" => {
                c.cuda = match value()?.as_str() {
                    "cpu" => false,
                    "cuda" => true,
                    s => return Err(format!("unknown --device `{s}` (cpu|cuda)")),
                }
            }
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    check(&c, ranks)?;
    Ok(c)
}

// ANCHOR: check
/// The checks that need no communication.
pub fn check(c: &PipeConfig, ranks: usize) -> Result<(), String> {
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
    if c.micro == 0 || c.batch == 0 || !c.batch.is_multiple_of(c.dp * c.micro) {
        return Err(format!(
            "batch {} does not cut into {} replica(s) x {} micro-batches of equal size",
            c.batch, c.dp, c.micro
        ));
    }
    if c.shape.task.digits == 0 || c.shape.task.digits > 9 || c.shape.width <= 0 {
        return Err("--digits must be 1..=9 and --width positive".into());
    }
    if c.cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    if c.resume && c.checkpoint.is_none() {
        return Err("--resume needs --checkpoint DIR".into());
    }
    if c.every == 0 || c.report == 0 {
        return Err("--every and --report must be at least 1".into());
    }
    Ok(())
}
// ANCHOR_END: check

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag}: `{v}` is not a valid number"))
}
