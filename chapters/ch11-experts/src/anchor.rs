//! Given: what `make anchors` times of this chapter (`moe_bench --train`): `moe_train`'s
//! step in one process, on batches made before the clock starts, each step's losses
//! printed to compare with PyTorch's port of the layer (scripts/anchors/moe_layer.py).

use crate::flags::pairs;
use crate::train::{batch, held, step_on, Model, Settings};
use crate::train_flags;
use mpi::topology::SimpleCommunicator;
use std::time::Instant;
use tch::Tensor;

/// `Some` with the settings and steps of `--train STEPS [--tokens N] [--hidden H] [--k K]`
/// (the rest `moe_train`'s defaults, α = 0.1), `None` for no arguments; `Err` in one line.
pub fn parse(args: &[String]) -> Result<Option<(Settings, usize)>, String> {
    if args.is_empty() {
        return Ok(None);
    }
    let (mut steps, mut lab) = (None, vec!["--alpha".to_string(), "0.1".into()]);
    for f in pairs(args)? {
        match f.flag {
            "--train" => steps = Some(f.count()?),
            "--tokens" | "--hidden" | "--k" => lab.extend([f.flag.into(), f.value.into()]),
            _ => return Err(f.unknown()),
        }
    }
    match steps {
        Some(0) => Err("--train 0: at least one step".into()),
        Some(steps) => Ok(Some((train_flags::parse(&lab)?.runs[0], steps))),
        None => Err("--tokens, --hidden and --k go with --train STEPS".into()),
    }
}

/// `moe_train`'s step in one process, on batches made beforehand: `LOSS n squared-error
/// balance` per step, then `MS` the median milliseconds per step after the first tenth.
pub fn train_steps(world: &SimpleCommunicator, s: &Settings, steps: usize) {
    let mut m = Model::new(s, held(s, 1, 0));
    let data: Vec<(Tensor, Tensor)> = (0..steps).map(|n| batch(s, n, 0)).collect();
    let mut ms = vec![];
    for (n, (x, y)) in data.iter().enumerate() {
        let t0 = Instant::now();
        let r = step_on(world, s, &mut m, x, y).expect("valid settings");
        ms.push(1e3 * t0.elapsed().as_secs_f64());
        println!("LOSS {n} {:.9e} {:.9e}", r.loss, r.balance);
    }
    let mut timed = ms[steps / 10..].to_vec();
    timed.sort_by(f64::total_cmp);
    println!("MS {:.4}", timed[timed.len() / 2]);
}
