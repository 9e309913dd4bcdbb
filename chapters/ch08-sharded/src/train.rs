//! Given: the `zero` lab's trainer. Chapter 6's model and digits, Adam, and one of the
//! three stages; it keeps count of the bytes it holds ([`Trainer::held`]) and of the
//! bytes it sends in a step (through the harness's message trace).
//!
//! Every stage computes the same thing: each rank's gradient of its part of the global
//! batch, averaged over the ranks, then Adam. Stage 0 allreduces the whole gradient and
//! runs Adam on every parameter; stages 1 and 2 run ex 8.2's `zero_step`. Stage 2 drops
//! the whole gradient after the reduce-scatter and keeps only its shard; stages 0 and 1
//! keep the whole gradient between steps (as DDP keeps its gradient buckets), and stage 1
//! frees the shard once Adam has used it. On a GPU ([`Trainer::new_on`]) the same step
//! runs with its collectives staged through host buffers (`staged`).

use crate::config::Config;
pub use crate::fit::{fit_with, sum_over_ranks, StepFn};
use crate::halves::Halves;
use crate::memory::{Held, Stage};
use crate::shards::{FlatParams, Layout, ShardAdam};
use crate::staged::OnDevice;
use crate::step;
use ch06::data::Dataset;
use ch06::{flat, model};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

/// A rank's trainer.
pub struct Trainer<'w> {
    pub(crate) world: &'w SimpleCommunicator,
    pub cfg: Config,
    /// This rank's shard (stage 0: one "shard" of everything, no padding).
    pub layout: Layout,
    /// The parameters, flat; the model's tensors are views into them.
    pub flat: FlatParams,
    /// The parameter tensors' names, in flat order (sorted).
    pub names: Vec<String>,
    model: nn::Sequential,
    _vs: nn::VarStore,
    /// Adam: for the shard (stages 1, 2) or for everything (stage 0).
    pub adam: ShardAdam,
    /// The whole flat gradient, kept between steps (stages 0 and 1).
    grad_full: Option<Vec<f32>>,
    /// This rank's averaged gradient shard: kept between steps at stage 2, freed after
    /// each step at stage 1.
    grad_shard: Vec<f32>,
    halves: Box<dyn Halves + 'w>,
    pub steps: u64,
    /// The messages of the first step, each send marked with the block it carried
    /// (`figure::marked`).
    pub first_step: Vec<toolkit::trace::Traced>,
    /// The step of the last checkpoint saved (`trainer_ckpt`), and why a save failed.
    pub(crate) saved_at: Option<u64>,
    pub ckpt_error: Option<String>,
    /// Per epoch: its seconds (the slowest rank's) and samples ([`fit_with`]).
    pub epoch_time: Vec<(f64, usize)>,
    /// On a GPU: the gradient kept there and the host staging buffers (None on the CPU).
    pub on_device: Option<OnDevice>,
    /// Seconds in [`Trainer::step`] so far, and in its collectives (stages 0 to 2 on the
    /// CPU): `--profile`.
    pub step_secs: f64,
    pub collective_secs: f64,
}

impl<'w> Trainer<'w> {
    /// Builds the model with the same seed on every rank (an identical start, checked by
    /// the caller) and the buffers of `cfg.stage`, on the CPU.
    pub fn new(
        world: &'w SimpleCommunicator,
        cfg: Config,
        image: (i64, i64),
    ) -> Result<Self, String> {
        Trainer::new_on(world, cfg, image, Device::Cpu)
    }

    /// As [`Trainer::new`], with the parameters, the kept gradient and Adam on `device`.
    pub fn new_on(
        world: &'w SimpleCommunicator,
        cfg: Config,
        image: (i64, i64),
        device: Device,
    ) -> Result<Self, String> {
        let (rank, ranks) = (world.rank() as usize, world.size() as usize);
        tch::manual_seed(cfg.common.seed as i64);
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let model = model::build(&vs.root(), cfg.model, image);
        let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<String> = named.iter().map(|(name, _)| name.clone()).collect();
        let params: Vec<Tensor> = named.into_iter().map(|(_, t)| t).collect();
        let count = flat::total_len(&params);
        let layout = match cfg.stage {
            Stage::Zero3 => return Err("stage 3 runs on zero3::Sharded, not here".into()),
            Stage::Replicated => Layout::new(count, 1, 0)?,
            _ => Layout::new(count, ranks, rank)?,
        };
        let flat = FlatParams::new_on(params, layout.padded, device);
        let adam = ShardAdam::new_on(cfg.common.lr, layout.shard, device);
        let on_device = (device != Device::Cpu).then(|| OnDevice::new(device, cfg.stage, &layout));
        let halves = crate::halves::for_collectives(world, cfg.collectives);
        let mut t = Trainer {
            world,
            cfg,
            layout,
            flat,
            names,
            model,
            _vs: vs,
            adam,
            grad_full: None,
            grad_shard: vec![],
            halves,
            steps: 0,
            first_step: vec![],
            saved_at: None,
            ckpt_error: None,
            epoch_time: vec![],
            on_device,
            step_secs: 0.0,
            collective_secs: 0.0,
        };
        if t.cfg.common.resume {
            t.resume()?; // sharded checkpoints: `trainer_ckpt`
        }
        Ok(t)
    }

    /// The bytes this rank holds now, measured from its buffers.
    pub fn held(&self) -> Held {
        let f32s = std::mem::size_of::<f32>();
        let grads = self.grad_full.as_ref().map_or(0, Vec::len) + self.grad_shard.len();
        let on_device = self.on_device.as_ref().map_or(0, OnDevice::grad_bytes);
        Held {
            params: self.flat.len() * f32s,
            grads: grads * f32s + on_device,
            adam: self.adam.state_bytes(),
            gathered: 0,
        }
    }

    /// One step on this rank's `images`, `labels`; returns the loss of its batch. With
    /// `count_sent`, also the bytes this rank sent in the step's communication (point to
    /// point, as the PMPI wrappers saw them).
    pub fn step(
        &mut self,
        images: &Tensor,
        labels: &Tensor,
        count_sent: bool,
    ) -> (f64, Option<usize>) {
        let started = std::time::Instant::now();
        let device = self.flat.tensor().device();
        let (images, labels) = (&images.to_device(device), &labels.to_device(device));
        let loss = model::loss(&self.model, images, labels);
        let grads = Tensor::run_backward(&[&loss], &self.flat.params, false, false);
        if count_sent {
            toolkit::trace::start();
        }
        match self.on_device.as_mut() {
            Some(dev) => {
                let (world, collectives) = (self.world, self.cfg.collectives);
                let allreduce = |full: &mut [f32]| sum_over_ranks(world, collectives, full);
                let (l, a) = (&self.layout, &mut self.adam);
                dev.step(
                    self.cfg.stage,
                    &*self.halves,
                    &allreduce,
                    l,
                    &self.flat,
                    a,
                    &grads,
                );
            }
            None => self.host_step(grads),
        }
        let sent = count_sent.then(|| {
            let log = toolkit::trace::stop();
            self.first_step = crate::figure::marked(&*self.halves, log);
            let sends = self.first_step.iter().filter(|m| m.sent);
            sends.map(|m| m.bytes as usize).sum()
        });
        self.steps += 1;
        let loss = loss.double_value(&[]);
        self.step_secs += started.elapsed().as_secs_f64();
        (loss, sent)
    }

    /// The step's communication and Adam on host buffers (the CPU).
    fn host_step(&mut self, grads: Vec<Tensor>) {
        let mut full = self
            .grad_full
            .take()
            .unwrap_or_else(|| vec![0.0; self.layout.padded]);
        flat::pack(&grads, &mut full[..self.layout.params]);
        drop(grads);
        let ranks = self.world.size() as f32;
        match self.cfg.stage {
            Stage::Replicated => {
                let t0 = std::time::Instant::now();
                sum_over_ranks(self.world, self.cfg.collectives, &mut full);
                self.collective_secs += t0.elapsed().as_secs_f64();
                full.iter_mut().for_each(|g| *g /= ranks);
                self.adam.step(self.flat.values_mut(), &full);
            }
            Stage::Zero1 | Stage::Zero2 | Stage::Zero3 => {
                self.grad_shard.resize(self.layout.shard, 0.0);
                let params = self.flat.values_mut();
                let timed = crate::timed::Timed::new(&*self.halves);
                step::zero_step(
                    &timed,
                    &self.layout,
                    &full,
                    &mut self.grad_shard,
                    params,
                    &mut self.adam,
                );
                self.collective_secs += timed.secs.get();
            }
        }
        match self.cfg.stage {
            // ZeRO-1 keeps the whole gradient and frees its shard (Adam is done with it)
            Stage::Zero1 => (self.grad_full, self.grad_shard) = (Some(full), Vec::new()),
            // ZeRO-2 keeps the shard and frees the whole gradient here
            Stage::Zero2 | Stage::Zero3 => drop(full),
            Stage::Replicated => self.grad_full = Some(full),
        }
    }

    /// Trains `cfg.epochs` epochs (or `cfg.max_steps` steps) on `train` ([`fit_with`]);
    /// a resumed trainer skips the batches of the steps it resumed after. Returns per epoch
    /// the mean loss over steps and ranks, and the bytes sent in this run's first step.
    /// With `--checkpoint DIR`, saves every `--every` steps and after the last; after a
    /// failed save ([`Trainer::ckpt_error`]) the remaining steps do nothing.
    pub fn fit(&mut self, train: &Dataset) -> (Vec<f64>, Option<usize>) {
        let (world, cfg) = (self.world, self.cfg.clone());
        let (mut steps, mut time) = (self.steps, vec![]);
        let out = fit_with(
            world,
            &cfg,
            train,
            &mut steps,
            &mut time,
            &mut |x, y, first| {
                if self.ckpt_error.is_some() {
                    return (0.0, None); // every rank knows: the save's verdict is collective
                }
                let done = self.step(x, y, first);
                if let Err(e) = self.maybe_save(false) {
                    self.ckpt_error = Some(e);
                }
                // CH08_KILL_RANK / CH08_KILL_AT_STEP: a rank dies here (chapter 15's labs).
                trainer_kit::fault::maybe_die("CH08", self.world.rank(), self.steps);
                done
            },
        );
        if let Err(e) = self.maybe_save(true) {
            self.ckpt_error.get_or_insert(e);
        }
        self.epoch_time = time;
        out
    }

    /// What rank `rank`'s shard holds (ex 8.1's `pieces`): `elements a..b: name[x..y],
    /// ...`, then the padding it holds, if any.
    pub fn shard_text(&self, rank: usize) -> Result<String, String> {
        let l = Layout::new(self.layout.params, self.world.size() as usize, rank)?;
        let lens: Vec<usize> = self.flat.params.iter().map(Tensor::numel).collect();
        let parts: Vec<String> = crate::layout::pieces(&lens, l.mine.clone())
            .iter()
            .map(|p| format!("{}[{:?}]", self.names[p.tensor], p.within))
            .collect();
        let pad = l.mine.len() - l.real().len();
        let pad = if pad > 0 {
            format!(" + {pad} padding")
        } else {
            String::new()
        };
        Ok(format!("elements {:?}: {}{pad}", l.mine, parts.join(", ")))
    }

    /// Accuracy (%) of the model on `test`.
    pub fn accuracy(&self, test: &Dataset) -> f64 {
        let idx: Vec<usize> = (0..test.len()).collect();
        let (x, y) = test.batch(&idx);
        let device = self.flat.tensor().device();
        let (x, y) = (x.to_device(device), y.to_device(device));
        let right = tch::no_grad(|| self.model.forward(&x).argmax(-1, false).eq_tensor(&y));
        100.0
            * right
                .to_kind(Kind::Double)
                .mean(Kind::Double)
                .double_value(&[])
    }
}
