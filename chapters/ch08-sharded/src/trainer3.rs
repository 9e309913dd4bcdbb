//! Given: the `zero` lab's trainer at stage 3: ZeRO-3's executor (`crate::zero3`) on the
//! lab's collectives, the training loop every stage runs (`crate::fit`), and sharded
//! checkpoints of its layers (`--checkpoint DIR`, `--every K`, `--resume`), on the CPU or,
//! staged (`crate::staged3`), on a device.
//!
//! A checkpoint at stage 3 is the same files as at stages 0 to 2 (`crate::sharded_ckpt`),
//! with one unit per layer: rank q writes, for every layer l, the real elements of its
//! shard of layer l's parameters, m and v; the manifest lists the layers (name, P_l). A
//! resume rebuilds every layer's shard from the saved slices (ex 8.4's `sources`, layer by
//! layer: saved at N, loaded at any M) and Adam's step count.
//!
//! Tests: `cargo test -p ch08-sharded --features solution --test main zero3_ckpt::`.

use crate::ckpt_read;
use crate::config::Config;
use crate::fit::fit_with;
use crate::halves::Halves;
use crate::one_file::Want;
use crate::sharded_ckpt::{self, model_name, ToSave};
use crate::shards::Layout;
use crate::trainer_ckpt::due;
use crate::zero3::{Comm, Sharded};
use ch06::data::Dataset;
use ch06::model::ModelKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::Path;
use tch::Device;
use toolkit::trace::{self, Traced};

/// A rank's stage-3 trainer.
pub struct Trainer3<'w> {
    world: &'w SimpleCommunicator,
    pub cfg: Config,
    /// This rank's shards of every layer, their gradients, Adam's state.
    pub model: Sharded,
    halves: Box<dyn Halves + 'w>,
    pub steps: u64,
    /// The messages of this run's first step (the lab draws them).
    pub first_step: Vec<Traced>,
    /// The step of the last checkpoint saved, and why a save failed.
    saved_at: Option<u64>,
    pub ckpt_error: Option<String>,
    /// Per epoch: its seconds (the slowest rank's) and samples.
    pub epoch_time: Vec<(f64, usize)>,
}

impl<'w> Trainer3<'w> {
    /// Builds the model's shards with the same seed on every rank, resumes from
    /// `--checkpoint DIR` with `--resume`, and moves the state to `device` (staged) unless
    /// it is the CPU.
    pub fn new_on(
        world: &'w SimpleCommunicator,
        cfg: Config,
        image: (i64, i64),
        device: Device,
    ) -> Result<Self, String> {
        let (rank, n) = (world.rank() as usize, world.size() as usize);
        tch::manual_seed(cfg.common.seed as i64);
        let lr = cfg.common.lr;
        let model = Sharded::new(cfg.model, image, (n, rank), lr, Layout::new)?;
        let halves = crate::halves::for_collectives(world, cfg.collectives);
        let mut t = Trainer3 {
            world,
            cfg,
            model,
            halves,
            steps: 0,
            first_step: vec![],
            saved_at: None,
            ckpt_error: None,
            epoch_time: vec![],
        };
        if t.cfg.common.resume {
            t.resume()?;
        }
        if device != Device::Cpu {
            t.model.stage_on(device, lr);
        }
        Ok(t)
    }

    /// How the executor gathers: the lab's halves, with prefetch if asked.
    pub fn comm(&self) -> Comm<'_> {
        Comm {
            halves: &*self.halves,
            prefetch: self.cfg.prefetch.then_some(self.world),
        }
    }

    /// Trains as `Trainer::fit` does (the batches of the steps resumed after skipped),
    /// saving into `--checkpoint DIR` every `--every` steps and after the last. Returns per
    /// epoch the mean loss, and the bytes this rank sent in this run's first step.
    pub fn fit(&mut self, train: &Dataset) -> (Vec<f64>, Option<usize>) {
        let (world, cfg) = (self.world, self.cfg.clone());
        let (mut steps, mut time, mut first) = (self.steps, vec![], vec![]);
        let (mut at, mut saved_at, mut error) = (self.steps, self.saved_at, None);
        let comm = Comm {
            halves: &*self.halves,
            prefetch: cfg.prefetch.then_some(world),
        };
        let model = &mut self.model;
        let dir = cfg.common.checkpoint.as_deref();
        let mut maybe_save = |model: &Sharded, at: u64, last: bool, error: &mut Option<String>| {
            let Some(dir) = dir.filter(|_| error.is_none()) else {
                return;
            };
            if due(at, cfg.common.every, last, saved_at) {
                match save(world, dir, &cfg, model, at) {
                    Ok(()) => saved_at = Some(at),
                    Err(e) => *error = Some(e),
                }
            }
        };
        let out = fit_with(
            world,
            &cfg,
            train,
            &mut steps,
            &mut time,
            &mut |x, y, count| {
                if error.is_some() {
                    return (0.0, None); // every rank knows: the save's verdict is collective
                }
                if count {
                    trace::start();
                }
                let loss = model.step(&comm, x, y);
                let sent = count.then(|| {
                    first = trace::stop();
                    first
                        .iter()
                        .filter(|m| m.sent)
                        .map(|m| m.bytes as usize)
                        .sum()
                });
                at += 1;
                maybe_save(model, at, false, &mut error);
                (loss, sent)
            },
        );
        maybe_save(model, at, true, &mut error);
        (self.steps, self.first_step, self.epoch_time) = (steps, first, time);
        (self.saved_at, self.ckpt_error) = (saved_at, error);
        out
    }

    /// Saves this rank's shards of every layer into `dir` (collective).
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        save(self.world, dir, &self.cfg, &self.model, self.steps)
    }

    /// Restores every layer's shard (resharded if saved at another N), Adam's m, v and
    /// step count from `--checkpoint DIR`.
    fn resume(&mut self) -> Result<(), String> {
        let dir = self.cfg.common.checkpoint.clone();
        let dir = dir.ok_or("--resume needs --checkpoint DIR")?;
        let m = &mut self.model;
        let units: Vec<(String, usize)> = m
            .units
            .iter()
            .map(|u| (u.name.clone(), u.params()))
            .collect();
        let wants = m.units.iter().map(|u| Want {
            layout: &u.layout,
            all_values: false,
        });
        let wants: Vec<Want> = wants.collect();
        let (model, format) = (model_id(self.cfg.model, m), self.cfg.checkpoint_format);
        let (step, slices) = ckpt_read::load(format, self.world, &dir, &model, &units, &wants)
            .map_err(|e| format!("--resume: {e}"))?;
        let (mut mm, mut vv) = m.adam.moments();
        for (r, s) in m.ranges.iter().zip(&slices) {
            m.shards[r.clone()].copy_from_slice(&s.values);
            mm[r.clone()].copy_from_slice(&s.m);
            vv[r.clone()].copy_from_slice(&s.v);
        }
        m.adam.restore(&mm, &vv, step);
        (self.steps, self.saved_at) = (step, Some(step));
        Ok(())
    }
}

/// The model's name in a checkpoint (`sharded_ckpt::model_name` of its layers' tensors):
/// the same as stages 0 to 2 give it.
fn model_id(kind: ModelKind, model: &Sharded) -> String {
    let named = model.units.iter().flat_map(|u| {
        let names = ["bias", "weight"].map(|p| format!("{}.{p}", u.name));
        names.into_iter().zip(u.shapes.iter().cloned())
    });
    model_name(kind, named.collect()).0
}

/// Saves `model`'s shards of every layer at `step` into `dir` (collective over `world`).
fn save(
    world: &SimpleCommunicator,
    dir: &Path,
    cfg: &Config,
    model: &Sharded,
    step: u64,
) -> Result<(), String> {
    let values = model.shard_values();
    let (m, v) = model.adam.moments();
    let units: Vec<ToSave> = model
        .units
        .iter()
        .zip(&model.ranges)
        .map(|(u, r)| ToSave {
            name: &u.name,
            layout: &u.layout,
            values: &values[r.clone()],
            m: &m[r.clone()],
            v: &v[r.clone()],
        })
        .collect();
    let model_name = model_id(cfg.model, model);
    sharded_ckpt::save_in(cfg.checkpoint_format, world, dir, &model_name, step, &units)
}
