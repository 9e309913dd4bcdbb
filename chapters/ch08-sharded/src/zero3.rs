//! Given: ZeRO-3, the layer executor. A rank keeps its shard of every unit's parameters
//! (crate::layers: one unit per layer, each its own padded flat buffer), of their averaged
//! gradients and of Adam's m and v: 16 bytes per parameter over N, with no whole copy of
//! anything between steps. LibTorch has no module hooks, so the executor runs the layers
//! itself, as chapter 7's executor runs a pipeline stage's operations:
//!
//! - forward, first layer first: allgather the unit's parameters, compute its output
//!   (no graph), free the gathered copy, keep the unit's input;
//! - backward, last layer first: allgather again, and ex 8.3's [`backward_layer`]:
//!   recompute, VJP, reduce-scatter the averaged gradient into this rank's shard, free;
//! - Adam on this rank's shards only.
//!
//! With prefetch, the next unit's allgather (the one after in the forward, the one before
//! in the backward) is posted non-blocking (MPI_Iallgather) before this unit computes,
//! and waited for after: while it flies, a rank holds two gathered units.
//!
//! On a device ([`Sharded::stage_on`], `crate::staged3`) the same executor keeps the
//! shards, gradients, Adam's state and gathered units there, each collective going
//! through host buffers allocated once.

use crate::layer_step::backward_layer;
use crate::layers::{self, Counted, Meter, Unit, Upstream};
use crate::memory::Held;
use crate::shards::ShardAdam;
use crate::staged3::{upload, OnDevice3};
use ch06::model::ModelKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::mem::take;
use std::ops::Range;
use std::time::Instant;
use tch::{Device, Tensor};

/// How the executor gathers: through the step's [`Halves`](crate::halves::Halves), one
/// unit at a time, or with the next unit's MPI_Iallgather posted ahead (prefetch).
pub struct Comm<'a> {
    /// The reduce-scatter and the blocking allgather.
    pub halves: &'a dyn crate::halves::Halves,
    /// `Some(world)`: prefetch the next unit with MPI's own non-blocking allgather.
    pub prefetch: Option<&'a SimpleCommunicator>,
}

/// A unit's backward, as ex 8.3's [`backward_layer`].
pub type Backward = fn(
    &dyn crate::halves::Halves,
    &Unit,
    Counted,
    &Tensor,
    Upstream,
    &mut [f32],
    &Meter,
) -> Option<Tensor>;

/// A rank's ZeRO-3 model: its shards of every unit, their gradients and Adam's state.
pub struct Sharded {
    /// The units, in forward order; each with this rank's layout in its flat buffer.
    pub units: Vec<Unit>,
    /// This rank's shards of every unit, one after another (S_0 + S_1 + ... elements).
    pub shards: Vec<f32>,
    /// Their averaged gradients, kept between steps (as ZeRO-2 keeps its shard).
    pub grad_shards: Vec<f32>,
    /// Where unit l's shard lies in [`Sharded::shards`].
    pub ranges: Vec<Range<usize>>,
    /// Adam for the shards only.
    pub adam: ShardAdam,
    /// The bytes held for a while inside a step: gathered units, a unit's whole gradient.
    pub meter: Meter,
    /// Seconds spent waiting for prefetched allgathers (MPI_Wait), since made.
    pub wait_secs: Cell<f64>,
    /// On a device: the shards, gradients and staging there (the host vectors above are
    /// then empty); None: the host path.
    pub on_device: Option<OnDevice3>,
}

impl Sharded {
    /// `rank`'s shards of `kind`'s model (built with the current seed, as chapter 6's),
    /// each unit laid out by `layout` (`Layout::new` in the trainer), Adam at rate `lr`.
    pub fn new(
        kind: ModelKind,
        image: (i64, i64),
        (ranks, rank): (usize, usize),
        lr: f64,
        layout: layers::LayoutFn,
    ) -> Result<Sharded, String> {
        let (units, values) = layers::units(kind, image, ranks, rank, layout)?;
        let (mut shards, mut ranges) = (vec![], vec![]);
        for (u, v) in units.iter().zip(&values) {
            let start = shards.len();
            let real = u.layout.real();
            shards.extend_from_slice(&v[real.clone()]);
            shards.resize(start + u.layout.shard, 0.0); // the padding
            ranges.push(start..shards.len());
        }
        let len = shards.len();
        Ok(Sharded {
            units,
            shards,
            grad_shards: vec![0.0; len],
            ranges,
            adam: ShardAdam::new(lr, len),
            meter: Meter::default(),
            wait_secs: Cell::new(0.0),
            on_device: None,
        })
    }

    /// P: the model's parameters, padding excluded.
    pub fn params(&self) -> usize {
        self.units.iter().map(Unit::params).sum()
    }

    /// Bytes held: the shards, their gradients and Adam's m and v, measured from the
    /// buffers (all a rank keeps between steps), and in `gathered` the most the last step
    /// held at once of gathered units and whole unit gradients (the meter's peak).
    pub fn held(&self) -> Held {
        let on = self.on_device.as_ref();
        let (p, g) = on.map_or((0, 0), |d| (d.shards.numel(), d.grad_shards.numel()));
        Held {
            params: 4 * (self.shards.len() + p),
            grads: 4 * (self.grad_shards.len() + g),
            adam: self.adam.state_bytes(),
            gathered: self.meter.peak(),
        }
    }

    /// Unit `l` gathered, blocking: every rank's shard into a counted buffer.
    pub fn gather(&self, comm: &Comm, l: usize) -> Counted<'_> {
        let padded = self.units[l].layout.padded;
        if let Some(d) = &self.on_device {
            return d.gather(comm.halves, self.ranges[l].clone(), padded, &self.meter);
        }
        let mut full = Counted::zeros(padded, &self.meter);
        comm.halves
            .gather_all(&self.shards[self.ranges[l].clone()], full.values_mut());
        full
    }

    /// Runs `work` (a unit's compute) while unit `next`, if any and with prefetch, is
    /// gathered non-blocking (MPI_Iallgather, waited for after `work`); returns `work`'s
    /// result and the gathered `next` (None without prefetch: the caller gathers it).
    fn overlapped<'s, T>(
        &'s self,
        comm: &Comm,
        next: Option<usize>,
        work: impl FnOnce() -> T,
    ) -> (T, Option<Counted<'s>>) {
        let (Some(world), Some(k)) = (comm.prefetch, next) else {
            return (work(), None);
        };
        let padded = self.units[k].layout.padded;
        let mut ahead = Counted::zeros_on(padded, &self.meter, self.device());
        let range = self.ranges[k].clone();
        // Staged: the host buffers (the current unit is already on the device).
        let mut staged = self.on_device.as_ref().map(|d| d.stage(range.clone()));
        let (shard, full): (&[f32], &mut [f32]) = match &mut staged {
            None => (&self.shards[range], ahead.values_mut()),
            Some((s, g)) => (&s[..range.len()], &mut g[..padded]),
        };
        let out = mpi::request::scope(|scope| {
            let request = world.immediate_all_gather_into(scope, shard, full);
            let out = work();
            let t0 = Instant::now();
            let _ = request.wait();
            self.wait_secs
                .set(self.wait_secs.get() + t0.elapsed().as_secs_f64());
            out
        });
        if let Some((_, g)) = &staged {
            upload(&ahead.flat, &g[..padded]); // host -> device
        }
        (out, Some(ahead))
    }

    /// The logits for `x`, gathering each unit (collective: every rank calls it) and
    /// keeping each unit's input in `inputs` when given.
    pub fn forward(&self, comm: &Comm, x: &Tensor, mut inputs: Option<&mut Vec<Tensor>>) -> Tensor {
        let last = self.units.len() - 1;
        let mut h = x.to_device(self.device());
        let mut cur = self.gather(comm, 0);
        for (l, unit) in self.units.iter().enumerate() {
            if let Some(kept) = inputs.as_deref_mut() {
                kept.push(h.shallow_clone());
            }
            let next = (l < last).then_some(l + 1);
            let (out, ahead) = self.overlapped(comm, next, || {
                tch::no_grad(|| unit.forward(&h, &cur.params(unit)))
            });
            h = out;
            drop(cur); // free the gathered copy
            match (ahead, next) {
                (Some(a), _) => cur = a,
                (None, Some(k)) => cur = self.gather(comm, k),
                (None, None) => break,
            }
        }
        h
    }

    /// One ZeRO-3 step on this rank's `images`, `labels`: forward, backward (ex 8.3 for
    /// each unit, last first), Adam on the shards. Returns the loss of this rank's batch.
    pub fn step(&mut self, comm: &Comm, images: &Tensor, labels: &Tensor) -> f64 {
        self.step_with(comm, images, labels, backward_layer)
    }

    // ANCHOR: step
    /// [`Sharded::step`] with `backward` for each unit's backward (the checks run
    /// planted mistakes through it).
    pub fn step_with(
        &mut self,
        comm: &Comm,
        images: &Tensor,
        labels: &Tensor,
        backward: Backward,
    ) -> f64 {
        self.meter.reset();
        let device = self.device();
        let (images, labels) = (&images.to_device(device), &labels.to_device(device));
        let mut inputs = vec![];
        let logits = self.forward(comm, images, Some(&mut inputs));
        let loss = tch::no_grad(|| logits.cross_entropy_for_logits(labels)).double_value(&[]);
        drop(logits);
        let mut grads = take(&mut self.grad_shards);
        // Staged: each unit's averaged gradient shard lands on the host, then the device.
        let mut staged = self
            .on_device
            .as_mut()
            .map(|d| take(&mut d.staging.grad_shard));
        let mut upstream: Option<Tensor> = None;
        let mut cur = Some(self.gather(comm, self.units.len() - 1));
        for l in (0..self.units.len()).rev() {
            let unit = &self.units[l];
            let input = inputs.pop().expect("one input per unit");
            let input = if l > 0 {
                input.set_requires_grad(true)
            } else {
                input
            };
            let gathered = cur.take().expect("unit l gathered");
            let up = match &upstream {
                None => Upstream::Loss(labels),
                Some(g) => Upstream::Grad(g),
            };
            let range = self.ranges[l].clone();
            let shard = match staged.as_mut() {
                None => &mut grads[range.clone()],
                Some(host) => &mut host[..range.len()],
            };
            let next = l.checked_sub(1);
            let (dx, ahead) = self.overlapped(comm, next, || {
                backward(comm.halves, unit, gathered, &input, up, shard, &self.meter)
            });
            if let (Some(d), Some(host)) = (&self.on_device, &staged) {
                d.keep_grad(range.clone(), &host[..range.len()]); // host -> device
            }
            upstream = dx;
            cur = ahead.or_else(|| next.map(|k| self.gather(comm, k)));
        }
        drop(cur); // None: every unit's gathered copy is freed
        self.grad_shards = grads;
        match (self.on_device.as_mut(), staged) {
            (Some(d), Some(host)) => {
                d.staging.grad_shard = host;
                self.adam.step_tensor(&d.shards, &d.grad_shards);
            }
            _ => self.adam.step(&mut self.shards, &self.grad_shards),
        }
        loss
    }
    // ANCHOR_END: step

    /// Every parameter, flat per unit and one unit after another (padding excluded):
    /// collective, for the checks that ranks agree and equal a reference.
    pub fn gathered_values(&self, comm: &Comm) -> Vec<f32> {
        let mut all = vec![];
        for l in 0..self.units.len() {
            let gathered = self.gather(comm, l);
            let full = gathered.flat.to_device(Device::Cpu);
            let real = full.narrow(0, 0, self.units[l].params() as i64);
            all.extend(Vec::<f32>::try_from(real).expect("f32 parameters"));
        }
        all
    }
}
