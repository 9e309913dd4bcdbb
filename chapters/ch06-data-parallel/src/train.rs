//! Given: the data-parallel trainer, assembled from the chapter's pieces.
//!
//! Start: each rank builds the model with its own seed, then rank 0's parameters are
//! broadcast (ex 6.2) and checked identical (`flat::check_identical`), or restored from a
//! checkpoint (ex 6.7) and checked again. Each step: this rank's batch (ex 6.3) ->
//! forward -> backward -> gradient sync (ex 6.4, 6.5, or overlapped; none at one rank) -> SGD step; rank 0
//! saves a checkpoint every K steps (ex 6.6). Used by `src/bin/train.rs` and the tests.

use crate::batches::Sampler;
use crate::broadcast::broadcast_parameters;
use crate::config::{Backend, Config, SyncMode};
use crate::data::Split;
use crate::device::Placement;
use crate::optim::{zero_grads, Optimizer, Rule};
use crate::overlap::{allreduce_overlapped, OverlapBuffers};
use crate::reducer::{allreduce_device_tensor, Allreduce, MpiAllreduce, RingAllreduce};
use crate::report::{EpochLog, Progress};

mod state;
use crate::{flat, grad_sync, model};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use std::time::Instant;
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

/// One rank's share of a data-parallel training run.
pub struct Trainer<'c> {
    pub cfg: Config,
    comm: &'c SimpleCommunicator,
    reducer: Box<dyn Allreduce + 'c>,
    pub device: Device,
    _vs: nn::VarStore,
    model: nn::Sequential,
    /// Parameter names and tensors, sorted by name (the same order on every rank).
    pub names: Vec<String>,
    pub params: Vec<Tensor>,
    pub opt: Optimizer,
    pub sampler: Sampler,
    data: Split,
    buckets: Vec<Range<usize>>,
    buf: Vec<f32>,
    overlap: OverlapBuffers,
    order: (u64, Vec<usize>),
    pub epoch: u64,
    pub step_in_epoch: u64,
    pub global_step: u64,
    /// Seconds spent in gradient sync on this rank since the last epoch report.
    pub sync_secs: f64,
    /// Whether the ranks' parameters differed before the broadcast (it is on purpose).
    pub differed_before_broadcast: bool,
}

impl<'c> Trainer<'c> {
    // ANCHOR: start
    /// Builds the model on every rank, makes the parameters identical (broadcast from rank
    /// 0, or a checkpoint with `--resume`) and checks that they are.
    pub fn new(
        comm: &'c SimpleCommunicator,
        cfg: Config,
        data: Split,
        place: Placement,
    ) -> Result<Self, String> {
        let (rank, ranks) = (comm.rank() as usize, comm.size() as usize);
        // The model is built on the CPU, then moved: a GPU's generator draws other numbers.
        tch::manual_seed(cfg.common.seed as i64 + rank as i64); // different on purpose: rank 0 wins
        let mut vs = nn::VarStore::new(Device::Cpu);
        let model = model::build(&vs.root(), cfg.model, data.train.image_size());
        vs.set_device(place.device);
        let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let (names, mut params): (Vec<String>, Vec<Tensor>) = named.into_iter().unzip();
        let differed = flat::check_identical(comm, &params, "").is_err();
        broadcast_parameters(comm, 0, &mut params);
        flat::check_identical(comm, &params, "after the broadcast")?;
        let lens: Vec<usize> = params.iter().map(Tensor::numel).collect();
        let batch = cfg.common.batch / ranks;
        let (len, seed, remainder) = (data.train.len(), cfg.common.seed, cfg.remainder);
        let sampler = Sampler {
            len,
            ranks,
            rank,
            seed,
            remainder,
            batch,
        };
        let rule = Rule::Momentum {
            lr: cfg.common.lr,
            momentum: cfg.momentum,
        };
        let opt = Optimizer::new(rule, &params);
        let reducer: Box<dyn Allreduce + 'c> = match cfg.allreduce {
            Backend::Mpi => Box::new(MpiAllreduce::new(comm)),
            Backend::Ring => Box::new(RingAllreduce::new(comm)),
        };
        let mut t = Trainer {
            buckets: grad_sync::plan_buckets(&lens, cfg.bucket_kib * 1024),
            cfg,
            comm,
            reducer,
            device: place.device,
            _vs: vs,
            model,
            names,
            params,
            opt,
            sampler,
            data,
            buf: vec![],
            overlap: OverlapBuffers::default(),
            order: (u64::MAX, vec![]),
            epoch: 0,
            step_in_epoch: 0,
            global_step: 0,
            sync_secs: 0.0,
            differed_before_broadcast: differed,
        };
        if t.cfg.common.resume {
            t.resume()?;
            flat::check_identical(comm, &t.params, "after resuming")?;
        }
        Ok(t)
    }
    // ANCHOR_END: start

    /// Replaces the allreduce behind the blocking syncs (e.g. chapter 3's ring).
    pub fn with_reducer(mut self, reducer: Box<dyn Allreduce + 'c>) -> Self {
        self.reducer = reducer;
        self
    }

    /// The bucket plan (index ranges into `params`).
    pub fn buckets(&self) -> &[Range<usize>] {
        &self.buckets
    }

    // ANCHOR: step
    /// One training step on this rank's batch; returns this rank's batch loss.
    pub fn step(&mut self) -> f64 {
        if self.order.0 != self.epoch {
            self.order = (self.epoch, self.sampler.epoch_indices(self.epoch));
        }
        let range = self.sampler.batch_range(self.step_in_epoch as usize);
        let (images, labels) = self.data.train.batch(&self.order.1[range]);
        let (images, labels) = (images.to_device(self.device), labels.to_device(self.device));
        zero_grads(&mut self.params);
        let loss = model::loss(&self.model, &images, &labels); // mean over this rank's batch
        loss.backward();
        let start = Instant::now();
        let mut grads: Vec<Tensor> = self.params.iter().map(Tensor::grad).collect();
        // One rank has nobody to agree with: no copies, no allreduce (the sum of one is itself).
        let alone = self.comm.size() == 1;
        match (
            self.cfg.sync,
            self.cfg.cuda_aware && self.device != Device::Cpu,
        ) {
            _ if alone => {}
            (_, true) => grads
                .iter_mut()
                .for_each(|g| allreduce_device_tensor(self.comm, g)),
            (SyncMode::PerTensor, _) => grad_sync::allreduce_per_tensor(&*self.reducer, &mut grads),
            (SyncMode::Bucketed, _) => grad_sync::allreduce_bucketed(
                &*self.reducer,
                &mut grads,
                &self.buckets,
                &mut self.buf,
            ),
            (SyncMode::Overlap, _) => {
                allreduce_overlapped(self.comm, &mut grads, &self.buckets, &mut self.overlap)
            }
        }
        if self.cfg.cuda_aware && self.device != Device::Cpu && !alone {
            let ranks = self.comm.size() as f64;
            tch::no_grad(|| {
                grads.iter_mut().for_each(|g| {
                    let _ = g.g_div_scalar_(ranks);
                })
            });
        }
        self.sync_secs += start.elapsed().as_secs_f64();
        self.opt.step_on_grads(&mut self.params);
        self.global_step += 1;
        self.step_in_epoch += 1;
        if self.step_in_epoch as usize >= self.sampler.steps_per_epoch() {
            (self.epoch, self.step_in_epoch) = (self.epoch + 1, 0);
        }
        self.maybe_die();
        loss.double_value(&[])
    }
    // ANCHOR_END: step

    // ANCHOR: evaluate
    /// Test loss and accuracy (%), each rank scoring every p-th test image, summed over
    /// the ranks with an allreduce.
    pub fn evaluate(&self) -> (f64, f64) {
        let (rank, ranks) = (self.comm.rank() as usize, self.comm.size() as usize);
        let mine: Vec<usize> = (rank..self.data.test.len()).step_by(ranks).collect();
        let mut sums = [0.0f64; 3]; // loss sum, correct, count
        for chunk in mine.chunks(512) {
            let (x, y) = self.data.test.batch(chunk);
            let (x, y) = (x.to_device(self.device), y.to_device(self.device));
            let logits = tch::no_grad(|| self.model.forward(&x));
            let loss = logits.log_softmax(-1, Kind::Float).nll_loss(&y);
            sums[0] += loss.double_value(&[]) * chunk.len() as f64;
            sums[1] += logits
                .argmax(-1, false)
                .eq_tensor(&y)
                .sum(Kind::Float)
                .double_value(&[]);
            sums[2] += chunk.len() as f64;
        }
        let mut total = [0.0f64; 3];
        self.comm
            .all_reduce_into(&sums[..], &mut total[..], SystemOperation::sum());
        (
            total[0] / total[2].max(1.0),
            100.0 * total[1] / total[2].max(1.0),
        )
    }
    // ANCHOR_END: evaluate

    /// Trains to `cfg.epochs` (or `cfg.max_steps`), one [`EpochLog`] per epoch finished;
    /// rank 0 prints each line unless `--quiet`.
    pub fn fit(&mut self, progress: &Progress) -> Result<Vec<EpochLog>, String> {
        let mut logs = vec![];
        let steps = self.sampler.steps_per_epoch();
        while self.epoch < self.cfg.epochs
            && self.cfg.max_steps.is_none_or(|m| self.global_step < m)
        {
            let (epoch, start, mut loss_sum, mut n) = (self.epoch, Instant::now(), 0.0, 0u64);
            self.sync_secs = 0.0;
            while self.epoch == epoch && self.cfg.max_steps.is_none_or(|m| self.global_step < m) {
                loss_sum += self.step();
                n += 1;
                self.maybe_checkpoint()?;
                if self.comm.rank() == 0 && !self.cfg.common.quiet {
                    progress.show(epoch + 1, self.step_in_epoch as usize, steps);
                }
            }
            if self.epoch == epoch {
                break; // stopped by max_steps inside the epoch: no epoch line
            }
            let wall =
                toolkit::report::Timing::over_ranks(self.comm, start.elapsed().as_secs_f64()).max;
            let sync = toolkit::report::Timing::over_ranks(self.comm, self.sync_secs).max;
            let mut mean = 0.0;
            self.comm.all_reduce_into(
                &(loss_sum / n.max(1) as f64),
                &mut mean,
                SystemOperation::sum(),
            );
            let (test_loss, test_acc) = self.evaluate();
            let samples = (n as usize * self.cfg.common.batch) as f64;
            let log = EpochLog {
                epoch: epoch + 1,
                train_loss: mean / f64::from(self.comm.size()),
                test_loss,
                test_acc,
                samples_per_s: samples / wall,
                sync_s: sync,
                sync_share: 100.0 * sync / wall,
            };
            if self.comm.rank() == 0 && !self.cfg.common.quiet {
                progress.clear();
                println!("{}", log.line());
            }
            logs.push(log);
        }
        Ok(logs)
    }
}
