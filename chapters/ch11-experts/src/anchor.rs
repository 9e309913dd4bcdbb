//! Given: what `make anchors` times of this chapter (`moe_bench --train`): `moe_train`'s
//! step in one process, on batches made before the clock starts, each step's losses
//! printed to compare with PyTorch's port of the layer (scripts/anchors/moe_layer.py).
//! Two forms of the same step: `--layer one`, the layer with every expert in one graph
//! (`train::step_one_process_on`, the work PyTorch's port does), and `--layer ep`, the
//! expert-parallel step on one rank (`train::step_on`: its four exchanges go through
//! MPI and host floats, and its backward joins three graphs).

use crate::flags::pairs;
use crate::train::{batch, held, step_on, step_one_process_on, Model, Settings};
use crate::train_flags;
use mpi::topology::SimpleCommunicator;
use std::time::Instant;
use tch::Tensor;

/// Which form of the layer [`train_steps`] times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerForm {
    /// Every expert in one graph, no exchanges (`--layer one`).
    OneProcess,
    /// The expert-parallel step on one rank, exchanges and all (`--layer ep`, the default).
    ExpertParallel,
}

/// What `--train` asks for.
pub struct TrainRun {
    /// The step's settings.
    pub settings: Settings,
    /// Steps to time.
    pub steps: usize,
    /// The form of the layer.
    pub form: LayerForm,
}

/// `Some` run for `--train STEPS [--tokens N] [--hidden H] [--k K] [--layer ep|one]` (the
/// rest `moe_train`'s defaults, α = 0.1), `None` for no arguments; `Err` in one line.
pub fn parse(args: &[String]) -> Result<Option<TrainRun>, String> {
    if args.is_empty() {
        return Ok(None);
    }
    let (mut steps, mut lab) = (None, vec!["--alpha".to_string(), "0.1".into()]);
    let mut form = LayerForm::ExpertParallel;
    for f in pairs(args)? {
        match f.flag {
            "--train" => steps = Some(f.count()?),
            "--layer" => {
                form = match f.value {
                    "one" => LayerForm::OneProcess,
                    "ep" => LayerForm::ExpertParallel,
                    _ => return Err(f.bad("expected ep or one")),
                }
            }
            "--tokens" | "--hidden" | "--k" => lab.extend([f.flag.into(), f.value.into()]),
            _ => return Err(f.unknown()),
        }
    }
    match steps {
        Some(0) => Err("--train 0: at least one step".into()),
        Some(steps) => Ok(Some(TrainRun {
            settings: train_flags::parse(&lab)?.runs[0],
            steps,
            form,
        })),
        None => Err("--tokens, --hidden, --k and --layer go with --train STEPS".into()),
    }
}

/// `moe_train`'s step in one process in the form `run.form`, on batches made beforehand:
/// `LOSS n squared-error balance` per step, then `MS` the median milliseconds per step
/// after the first tenth.
pub fn train_steps(world: &SimpleCommunicator, run: &TrainRun) {
    let (s, steps) = (&run.settings, run.steps);
    let mut m = Model::new(s, held(s, 1, 0));
    let data: Vec<(Tensor, Tensor)> = (0..steps).map(|n| batch(s, n, 0)).collect();
    let mut ms = vec![];
    for (n, xy) in data.into_iter().enumerate() {
        let t0 = Instant::now();
        let (loss, balance) = match run.form {
            LayerForm::ExpertParallel => {
                let r = step_on(world, s, &mut m, &xy.0, &xy.1).expect("valid settings");
                (r.loss, r.balance)
            }
            LayerForm::OneProcess => {
                step_one_process_on(s, &mut m, std::slice::from_ref(&xy)).expect("valid settings")
            }
        };
        ms.push(1e3 * t0.elapsed().as_secs_f64());
        println!("LOSS {n} {loss:.9e} {balance:.9e}");
    }
    let mut timed = ms[steps / 10..].to_vec();
    timed.sort_by(f64::total_cmp);
    println!("MS {:.4}", timed[timed.len() / 2]);
}
