//! Given: the flags of the lab `gpt`, read with clap and checked before MPI starts.

use crate::flags::or_todo;
use crate::gpt::GptConfig;
use crate::grid::Layout;
use crate::params::BlockConfig;
use clap::Parser;
use trainer_kit::cli::{Common, DeviceChoice};

/// The lab's command line: the trainers' common flags, and the model's and the grid's.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    about = "A small GPT trained on the book's pages over a DP x TP x PP grid of ranks",
    after_help = "Checkpoints (--checkpoint DIR) hold whole tensors by name, a part per pipeline \
                  stage: --resume reads them into any --dp x --tp x --pp the model allows."
)]
pub struct GptFlags {
    #[command(flatten)]
    pub common: Common,
    /// Data-parallel replicas [default: the ranks / --tp]
    #[arg(long, value_name = "D")]
    pub dp: Option<usize>,
    /// Tensor-parallel ranks per replica [default: 2 at an even number of ranks, else all]
    #[arg(long, value_name = "T")]
    pub tp: Option<usize>,
    /// Pipeline stages (each a contiguous range of the blocks)
    #[arg(long, value_name = "P", default_value_t = 1)]
    pub pp: usize,
    /// Micro-batches a replica's batch is split into (GPipe)
    #[arg(long, value_name = "M", default_value_t = 1)]
    pub micro: usize,
    /// Training steps
    #[arg(long, value_name = "N", default_value_t = 1500)]
    pub steps: u64,
    /// Transformer blocks
    #[arg(long, value_name = "L", default_value_t = 2)]
    pub layers: usize,
    /// Features per token
    #[arg(long, value_name = "H", default_value_t = 96)]
    pub hidden: usize,
    /// Attention heads (--tp must divide them)
    #[arg(long, value_name = "A", default_value_t = 6)]
    pub heads: usize,
    /// Context length in characters
    #[arg(long, value_name = "S", default_value_t = 64)]
    pub seq: usize,
    /// A progress line every K steps
    #[arg(long, value_name = "K", default_value_t = 250)]
    pub log_every: u64,
    /// The text the sample at the end starts from
    #[arg(long, value_name = "TEXT", default_value = "The ")]
    pub prompt: String,
    /// Characters to generate at the end
    #[arg(long, value_name = "N", default_value_t = 240)]
    pub sample: usize,
    /// The last step's communication on every rank: FILE.json (Perfetto)
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

trainer_kit::trainer!(GptFlags, name: "gpt", check: check,
    batch: 16, lr: 0.003, seed: 9, device: "cpu", every: 50);

impl GptFlags {
    /// The grid over `ranks`: `--pp` stages of `--dp` x `--tp`, either worked out from
    /// the other over the ranks of a stage.
    pub fn layout(&self, ranks: usize) -> Result<Layout, String> {
        if self.pp != 1 {
            if self.pp == 0 || !ranks.is_multiple_of(self.pp) {
                return Err(format!(
                    "--pp {} does not divide the job's {ranks} ranks",
                    self.pp
                ));
            }
            let one = self.layout_of_stage(ranks / self.pp)?;
            return Layout::staged(one.dp, one.tp, self.pp, self.layers, ranks);
        }
        self.layout_of_stage(ranks)
    }

    /// `--dp` x `--tp` over the `ranks` of one stage.
    fn layout_of_stage(&self, ranks: usize) -> Result<Layout, String> {
        let tp = match (self.dp, self.tp) {
            (_, Some(tp)) => tp,
            (Some(dp), None) if dp > 0 && ranks.is_multiple_of(dp) => ranks / dp,
            (Some(dp), None) => return Layout::new(dp, 0, ranks),
            (None, None) if ranks.is_multiple_of(2) => 2,
            (None, None) => ranks,
        };
        let dp = self.dp.unwrap_or(ranks.checked_div(tp).unwrap_or(0));
        Layout::new(dp, tp, ranks)
    }

    /// The model for a vocabulary of `vocab` on `layout` (a replica's share of the batch).
    pub fn model(&self, vocab: usize, layout: Layout) -> Result<GptConfig, String> {
        let b = self.common.batch;
        if b == 0 || !b.is_multiple_of(layout.dp) {
            return Err(format!(
                "global batch {b} does not split over {} replicas: use a multiple of {}",
                layout.dp, layout.dp
            ));
        }
        let block = BlockConfig::new(b / layout.dp, self.seq, self.hidden, self.heads)?;
        Ok(GptConfig {
            vocab,
            layers: self.layers,
            block,
        })
    }
}

impl GptFlags {
    /// With `--resume`: whether `--checkpoint DIR` holds a readable checkpoint of this
    /// model (V = `vocab`, f32) with steps left before `--steps`; one line, before MPI
    /// starts (every rank reads the same files: the same verdict).
    pub fn check_resume(&self, vocab: usize) -> Result<(), String> {
        let (Some(dir), true) = (&self.common.checkpoint, self.common.resume) else {
            return Ok(());
        };
        let cfg = self.model(
            vocab,
            Layout {
                dp: 1,
                tp: 1,
                pp: 1,
            },
        )?; // the name has no batch
        let model = crate::gpt_ckpt::model_name(&cfg, tch::Kind::Float);
        let saved =
            crate::gpt_ckpt_read::open(dir, &model).map_err(|e| format!("--resume: {e}"))?;
        match saved.step < self.steps {
            true => Ok(()),
            false => Err(format!(
                "--resume: the checkpoint in {} is at step {}, and --steps {} asks for no more: \
                 use --steps above {}",
                dir.display(),
                saved.step,
                self.steps,
                saved.step
            )),
        }
    }
}

/// The checks that need no communication (and no corpus): one line each.
fn check(f: &GptFlags, ranks: usize) -> Result<(), String> {
    if f.common.resume && f.common.checkpoint.is_none() {
        return Err("--resume needs --checkpoint DIR (the folder of the checkpoint)".into());
    }
    if f.common.device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    let counts = [
        ("--steps", f.steps as usize),
        ("--layers", f.layers),
        ("--seq", f.seq),
        ("--log-every", f.log_every as usize),
        ("--every", f.common.every as usize),
    ];
    for (flag, n) in counts {
        if n == 0 {
            return Err(format!("{flag} 0: at least 1"));
        }
    }
    let layout = f.layout(ranks)?;
    if f.common.device == DeviceChoice::Cuda && (layout.pp > 1 || f.micro > 1) {
        return Err(format!(
            "--device cuda with --pp {} --micro {}: the pipelined GPT trains on the CPU only \
             so far; on a GPU use --pp 1 --micro 1 (--device auto trains it on the CPU)",
            layout.pp, f.micro
        ));
    }
    let model = f.model(0, layout)?;
    crate::pipeline::check_micro(model.block.batch, f.micro)?;
    let per = ranks / layout.pp;
    let at = |why| match f.tp {
        Some(tp) => format!("{why} (at --tp {tp})"),
        None => format!(
            "{why} (--tp {} by default at {per} ranks{}: choose --tp, e.g. --dp {per} --tp 1)",
            layout.tp,
            if layout.pp > 1 { " a stage" } else { "" }
        ),
    };
    or_todo(|| model.check(layout.tp).map_err(at))
}
