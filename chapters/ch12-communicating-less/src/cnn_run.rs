//! Given: the `compress_cnn` lab's run of one [`Scheme`]: chapter 6's trainer (its CNN,
//! the shipped digits, its sampler and SGD with momentum), one gradient bucket synced
//! through [`Compressed`], `steps` steps from the same start and data order for every
//! scheme (for local SGD, ex 12.5's average of the parameters every `H` steps), then
//! chapter 6's test accuracy. Nothing to run here: the lab uses it.

use crate::cnn_flags::CnnFlags;
use crate::compressed::{Compressed, Scheme};
use crate::local;
use ch06::config::{Config, DeviceChoice, SyncMode};
use ch06::model::ModelKind;
use ch06::train::Trainer;
use ch06::{data, device};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tch::Tensor;
use toolkit::report::Timing;

/// A bucket cap far above the CNN's gradient: the whole gradient is one bucket, so top-k
/// picks the largest elements of the whole gradient and one residual covers it all.
const ONE_BUCKET_KIB: usize = 1 << 20;

/// What one scheme measured.
#[derive(Clone, Debug)]
pub struct CnnRun {
    /// The model's parameter count (the dense gradient's length).
    pub params: usize,
    /// The bytes one rank handed to the exchange per step, counted (the most of any rank).
    pub bytes_per_step: usize,
    /// Seconds per step, the slowest rank's.
    pub step_secs: f64,
    /// Seconds per step in the gradient sync, the slowest rank's.
    pub sync_secs: f64,
    /// Chapter 6's test loss and accuracy (%) after the steps.
    pub test_loss: f64,
    pub test_acc: f64,
}

/// Ex 12.5's average of the model's parameters over the ranks, through one flat buffer:
/// the optimizer's momentum stays each rank's own. Returns the bytes this rank sent.
fn average_params(world: &SimpleCommunicator, params: &[Tensor]) -> usize {
    let mut flat: Vec<f32> = params
        .iter()
        .flat_map(|p| Vec::<f32>::try_from(&p.detach().flatten(0, -1)).expect("f32 parameters"))
        .collect();
    local::average(world, &mut flat);
    let mut at = 0;
    tch::no_grad(|| {
        for p in params {
            let n = p.numel();
            let avg = Tensor::from_slice(&flat[at..at + n]).view(p.size().as_slice());
            p.shallow_clone().copy_(&avg);
            at += n;
        }
    });
    std::mem::size_of_val(&flat[..])
}

/// Chapter 6's configuration for the lab's flags: the CNN, bucketed sync in one bucket,
/// on the CPU, quiet.
pub fn config(f: &CnnFlags, ranks: usize) -> Config {
    let mut cfg = Config {
        model: ModelKind::Cnn,
        sync: SyncMode::Bucketed,
        bucket_kib: ONE_BUCKET_KIB,
        max_steps: Some(f.steps),
        ..Config::default()
    };
    let c = &mut cfg.common;
    (c.batch, c.lr, c.seed) = (f.global_batch(ranks) as usize, f.lr, f.seed);
    (c.device, c.threads, c.quiet) = (DeviceChoice::Cpu, Some(1), true);
    cfg
}

/// Trains `f.steps` steps of chapter 6's CNN with `scheme` summing the gradients. A bad
/// setting (a batch smaller than the ranks) refused in one line before any communication.
pub fn train(world: &SimpleCommunicator, f: &CnnFlags, scheme: Scheme) -> Result<CnnRun, String> {
    let cfg = config(f, world.size() as usize);
    ch06::config::check(&cfg, world.size() as usize)?;
    let split = data::digits()?;
    let place = device::place(world, cfg.common.device, cfg.common.threads);
    let trainer = Trainer::new(world, cfg, split, place)?;
    let lens: Vec<usize> = trainer
        .buckets()
        .iter()
        .map(|b| trainer.params[b.clone()].iter().map(|p| p.numel()).sum())
        .collect();
    let backend = Compressed::new(world, scheme, &lens)?;
    let bytes = backend.bytes();
    let mut trainer = trainer.with_reducer(Box::new(backend));
    toolkit::idle::barrier(world);
    let start = Instant::now();
    let mut average_secs = 0.0; // local SGD's averages: its sync, outside the trainer's
    for step in 1..=f.steps {
        trainer.step();
        if let Scheme::LocalSgd { every } = scheme {
            if step % every as u64 == 0 && world.size() > 1 {
                let t = Instant::now();
                bytes.set(bytes.get() + average_params(world, &trainer.params));
                average_secs += t.elapsed().as_secs_f64();
            }
        }
    }
    let n = f.steps as f64;
    let step_secs = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max / n;
    let sync_secs = Timing::over_ranks(world, trainer.sync_secs + average_secs).max / n;
    let (test_loss, test_acc) = trainer.evaluate();
    let mut most = 0u64;
    let mine = (bytes.get() as u64) / f.steps;
    world.all_reduce_into(&mine, &mut most, SystemOperation::max());
    Ok(CnnRun {
        params: lens.iter().sum(),
        bytes_per_step: most as usize,
        step_secs,
        sync_secs,
        test_loss,
        test_acc,
    })
}
