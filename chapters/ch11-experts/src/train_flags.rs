//! Given: the `moe_train` lab's flags, parsed and checked before MPI starts: a bad value
//! is refused in one line (exit 2) and nothing is launched.

use crate::config::MoeConfig;
use crate::flags::pairs;
use crate::train::Settings;
use tch::Device;
use trainer_kit::cli::{device_choice, DeviceChoice};

/// The lab's usage text (`--help`).
pub const USAGE: &str = "\
usage: moe_train [--alpha A[,A...]] [--steps S] [--experts E] [--k K] [--capacity-factor F]
                 [--tokens N] [--hidden H] [--lr LR] [--skew X] [--seed N] [--every N] [--plot FILE]
                 [--router-scale S] [--device cpu|auto|cuda]
  --alpha A[,A...]      the balancing loss's weight, one run per value (default 0,0.1)
  --steps S             Adam steps per run (default 200)
  --experts E           experts in all, split over the ranks in blocks (default 8)
  --k K                 experts per token, 1 or 2 (default 1)
  --capacity-factor F   room per expert, 1.0 an even share (default 1.25)
  --tokens N            tokens per rank per step (default 64)
  --hidden H            floats per token (default 8)
  --lr LR               Adam's learning rate (default 0.05)
  --skew X              cluster i drawn with weight 1/(i+1)^X (default 0: even)
  --seed N              the task's, the targets' and the weights' seed (default 11)
  --every N             print every N-th step and the last (default 20)
  --plot FILE           write an SVG of the busiest expert's share per step, one line per α
  --router-scale S      the router's initial entries: normal times S (default 0.1); near 0
                        its probabilities start even
  --device D            cpu (default), cuda (each rank's local GPU; refused in one line, with
                        the reason, where none can be used) or auto (a GPU if there is one)
";

/// The lab's settings: one [`Settings`] per α, and how to report.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainFlags {
    /// The runs, in the order of `--alpha`.
    pub runs: Vec<Settings>,
    /// Steps per run.
    pub steps: usize,
    /// Print every `every`-th step (and the last).
    pub every: usize,
    /// Where to write the SVG, if anywhere.
    pub plot: Option<String>,
    /// The device asked for; `trainer_kit::place` turns it into each rank's device once
    /// MPI runs (the runs' `device` is the CPU until then).
    pub device: DeviceChoice,
}

/// The flags, or the one line that says what is wrong with them.
pub fn parse(args: &[String]) -> Result<TrainFlags, String> {
    let (mut experts, mut k, mut factor, mut tokens, mut hidden) = (8usize, 1usize, 1.25, 64, 8);
    let (mut steps, mut lr, mut skew, mut seed, mut every) = (200usize, 0.05, 0.0, 11u64, 20);
    let (mut alphas, mut plot, mut device) = (vec![0.0, 0.1], None, DeviceChoice::Cpu);
    let mut router_scale = 0.1;
    for f in pairs(args)? {
        match f.flag {
            "--experts" => experts = f.count()?,
            "--k" => k = f.count()?,
            "--tokens" => tokens = f.count()?,
            "--hidden" => hidden = f.count()?,
            "--steps" => steps = f.count()?,
            "--every" => every = f.count()?,
            "--seed" => seed = f.seed()?,
            "--capacity-factor" => factor = f.number(f.value)?,
            "--lr" => lr = f.number(f.value)?,
            "--skew" => skew = f.number(f.value)?,
            "--router-scale" => router_scale = f.number(f.value)?,
            "--alpha" => {
                alphas = f
                    .value
                    .split(',')
                    .map(|a| f.number(a))
                    .collect::<Result<_, _>>()?
            }
            "--plot" => plot = Some(f.value.to_string()),
            "--device" => device = device_choice(f.value).map_err(|e| f.bad(&e))?,
            _ => return Err(f.unknown()),
        }
    }
    if let Some(a) = alphas.iter().find(|a| !(a.is_finite() && **a >= 0.0)) {
        return Err(format!(
            "--alpha {a}: the balancing loss's weight must be 0 or more"
        ));
    }
    if !(lr.is_finite() && lr > 0.0) {
        return Err(format!(
            "--lr {lr}: the learning rate must be a positive number"
        ));
    }
    if !(skew.is_finite() && skew >= 0.0) {
        return Err(format!("--skew {skew}: it must be 0 or more"));
    }
    if !(router_scale.is_finite() && router_scale >= 0.0) {
        return Err(format!(
            "--router-scale {router_scale}: it must be 0 or more"
        ));
    }
    if hidden == 0 || tokens == 0 || every == 0 {
        return Err("--hidden, --tokens and --every must be at least 1".into());
    }
    if device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            return Err(format!("--device cuda: {why}"));
        }
    }
    let cfg = MoeConfig::new(experts, k, factor)?;
    let run = |alpha| Settings {
        cfg,
        hidden,
        tokens,
        alpha,
        lr,
        skew,
        seed,
        router_scale,
        device: Device::Cpu,
    };
    Ok(TrainFlags {
        runs: alphas.into_iter().map(run).collect(),
        steps,
        every,
        plot,
        device,
    })
}
