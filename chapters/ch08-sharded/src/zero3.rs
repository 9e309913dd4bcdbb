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

use crate::layer_step::backward_layer;
use crate::layers::{self, Counted, Meter, Unit, Upstream};
use crate::memory::Held;
use crate::shards::ShardAdam;
use ch06::model::ModelKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::ops::Range;
use std::time::Instant;
use tch::Tensor;

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
        Held {
            params: 4 * self.shards.len(),
            grads: 4 * self.grad_shards.len(),
            adam: self.adam.state_bytes(),
            gathered: self.meter.peak(),
        }
    }

    /// Unit `l` gathered, blocking: every rank's shard into a counted buffer.
    pub fn gather(&self, comm: &Comm, l: usize) -> Counted<'_> {
        let mut full = Counted::zeros(self.units[l].layout.padded, &self.meter);
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
        let mut ahead = Counted::zeros(self.units[k].layout.padded, &self.meter);
        let shard = &self.shards[self.ranges[k].clone()];
        let out = mpi::request::scope(|scope| {
            let request = world.immediate_all_gather_into(scope, shard, ahead.values_mut());
            let out = work();
            let t0 = Instant::now();
            let _ = request.wait();
            self.wait_secs
                .set(self.wait_secs.get() + t0.elapsed().as_secs_f64());
            out
        });
        (out, Some(ahead))
    }

    /// The logits for `x`, gathering each unit (collective: every rank calls it) and
    /// keeping each unit's input in `inputs` when given.
    pub fn forward(&self, comm: &Comm, x: &Tensor, mut inputs: Option<&mut Vec<Tensor>>) -> Tensor {
        let last = self.units.len() - 1;
        let mut h = x.shallow_clone();
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
        let mut inputs = vec![];
        let logits = self.forward(comm, images, Some(&mut inputs));
        let loss = tch::no_grad(|| logits.cross_entropy_for_logits(labels)).double_value(&[]);
        drop(logits);
        let mut grads = std::mem::take(&mut self.grad_shards);
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
            let shard = &mut grads[self.ranges[l].clone()];
            let next = l.checked_sub(1);
            let (dx, ahead) = self.overlapped(comm, next, || {
                backward(comm.halves, unit, gathered, &input, up, shard, &self.meter)
            });
            upstream = dx;
            cur = ahead.or_else(|| next.map(|k| self.gather(comm, k)));
        }
        drop(cur); // None: every unit's gathered copy is freed
        self.grad_shards = grads;
        self.adam.step(&mut self.shards, &self.grad_shards);
        loss
    }
    // ANCHOR_END: step

    /// Every parameter, flat per unit and one unit after another (padding excluded):
    /// collective, for the checks that ranks agree and equal a reference.
    pub fn gathered_values(&self, comm: &Comm) -> Vec<f32> {
        let mut all = vec![];
        for l in 0..self.units.len() {
            let full = self.gather(comm, l);
            all.extend_from_slice(&full.values()[..self.units[l].params()]);
        }
        all
    }
}
