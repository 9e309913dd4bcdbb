//! Given: chapter 8's ZeRO stages in mixed precision: bf16 working weights and gradients,
//! f32 master weights and Adam, each kept whole or for this rank's shard as the stage says
//! (`crate::zero_memory`: the table and the formulas). The model runs as chapter 8's FSDP
//! units (`ch08::layers`: one per layer, each padded to N x S_l elements), so P is the
//! padded count at stages 1 to 3. Every stage computes the same step:
//! - forward, unit after unit, in bf16 (stage 3 allgathers the unit's bf16 shards first
//!   and frees them after), keeping each unit's input;
//! - backward, last unit first: the unit recomputed on its parameters and its VJP taken;
//!   its bf16 gradient summed over the ranks in f32 (every bf16 is an f32; MPI has no bf16
//!   sum): whole at stage 0 (MPI_Allreduce), this rank's shard at the others
//!   (MPI_Reduce_scatter_block); averaged and rounded to bf16;
//! - Adam (PyTorch's update, chapter 8's `ShardAdam`) on the f32 master shard; its
//!   rounding to bf16 is the new working shard, allgathered at stages 1 and 2.
//!
//! Nothing to run here: the `zero_mixed` lab and the tests use it.

use crate::zero_memory::{from_bf16, to_bf16, unit_layout, MixedHeld};
use crate::zero_run::GatherFp8;
use ch06::model::ModelKind;
use ch08::layers::{self, Meter, Unit};
use ch08::memory::Stage;
use ch08::shards::ShardAdam;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::ops::Range;
use tch::{Kind, Tensor};

/// A unit's parameter tensors (bias, weight) in bf16 from its whole codes.
fn params_of(unit: &Unit, codes: &[u16], grad: bool) -> Vec<Tensor> {
    let values = Tensor::from_slice(&from_bf16(codes)).to_kind(Kind::BFloat16);
    let mut at = 0;
    let shapes = unit.shapes.iter();
    shapes
        .map(|shape| {
            let n: i64 = shape.iter().product();
            at += n;
            let t = values.narrow(0, at - n, n).view(shape.as_slice());
            t.detach().set_requires_grad(grad)
        })
        .collect()
}

/// A rank's model and optimizer at one stage, in mixed precision.
pub struct MixedZero<'w> {
    pub(crate) world: &'w SimpleCommunicator,
    pub stage: Stage,
    /// The model's units, in forward order, each with this rank's layout (stage 0: one
    /// "shard" of everything, unpadded).
    pub units: Vec<Unit>,
    /// Per unit: the bf16 working weights, whole and padded (stages 0 to 2) or this rank's
    /// shard (stage 3).
    pub working: Vec<Vec<u16>>,
    /// Per unit: the bf16 gradient kept between steps (see [`MixedHeld::grads`]).
    pub grads: Vec<Vec<u16>>,
    /// The f32 master weights of this rank's shards, one unit after another.
    pub master: Vec<f32>,
    /// Where unit l's shard lies in [`MixedZero::master`].
    pub ranges: Vec<Range<usize>>,
    /// Adam for the master shard.
    pub adam: ShardAdam,
    /// Ex 14.5: stage 3 gathers the parameters in FP8 with this function (None: in bf16).
    pub fp8: Option<GatherFp8>,
    /// Bytes this rank has sent in the parameters' allgathers so far: (N - 1) S values of
    /// 2 bytes (bf16) or 1 (FP8) per allgather of a unit, as a ring allgather sends them.
    pub gather_sent: Cell<usize>,
    /// Stage 3's gathered units and the whole-unit gradients of stages 2 and 3, counted
    /// while they live inside a step (bf16 bytes; the f32 copies MPI sums are not counted).
    pub meter: Meter,
}

impl<'w> MixedZero<'w> {
    /// `kind`'s model for (H, W) images with the weights of `seed` (chapter 6's), sharded
    /// over `world` at `stage`, Adam at rate `lr`. Refuses more ranks than a unit has
    /// parameters.
    pub fn new(
        world: &'w SimpleCommunicator,
        stage: Stage,
        kind: ModelKind,
        image: (i64, i64),
        seed: u64,
        lr: f64,
    ) -> Result<MixedZero<'w>, String> {
        let (n, r) = match stage {
            Stage::Replicated => (1, 0),
            _ => (world.size() as usize, world.rank() as usize),
        };
        tch::manual_seed(seed as i64);
        let (units, values) = layers::units(kind, image, n, r, unit_layout)?;
        let (mut working, mut master, mut ranges) = (vec![], vec![], vec![]);
        for (unit, v) in units.iter().zip(values) {
            let mut whole = v;
            whole.resize(unit.layout.padded, 0.0);
            let mine = &whole[unit.layout.mine.clone()];
            ranges.push(master.len()..master.len() + mine.len());
            master.extend_from_slice(mine);
            let keep = if stage == Stage::Zero3 {
                mine
            } else {
                &whole[..]
            };
            working.push(to_bf16(keep));
        }
        Ok(MixedZero {
            world,
            stage,
            grads: vec![vec![]; units.len()],
            adam: ShardAdam::new(lr, master.len()),
            units,
            working,
            master,
            ranges,
            meter: Meter::default(),
            fp8: None,
            gather_sent: Cell::new(0),
        })
    }

    /// P: the padded parameters over all units (stage 0: the model's own count).
    pub fn padded(&self) -> usize {
        self.units.iter().map(|u| u.layout.padded).sum()
    }

    /// The bytes this rank holds now, measured from its buffers.
    pub fn held(&self) -> MixedHeld {
        let codes = |v: &Vec<Vec<u16>>| 2 * v.iter().map(Vec::len).sum::<usize>();
        MixedHeld {
            working: codes(&self.working),
            grads: codes(&self.grads),
            master: 4 * self.master.len() + self.adam.state_bytes(),
        }
    }

    /// Unit `l`'s whole working codes: its own (stages 0 to 2) or, at stage 3, allgathered
    /// from the shards and counted on the meter until [`MixedZero::release`].
    fn whole(&self, l: usize) -> Vec<u16> {
        if self.stage != Stage::Zero3 {
            return self.working[l].clone();
        }
        let layout = &self.units[l].layout;
        let whole = match self.fp8 {
            None => {
                let mut whole = vec![0u16; layout.padded];
                self.world
                    .all_gather_into(&self.working[l][..], &mut whole[..]);
                whole
            }
            Some(gather) => {
                let mut values = vec![0f32; layout.padded];
                gather(self.world, &from_bf16(&self.working[l]), &mut values);
                to_bf16(&values) // the gathered layer computes in bf16
            }
        };
        let bytes = if self.fp8.is_some() { 1 } else { 2 };
        self.count_gather(layout.shard * bytes);
        self.meter.add(2 * whole.len());
        whole
    }

    /// Counts an allgather of `shard_bytes` from every rank: (N - 1) x that sent.
    fn count_gather(&self, shard_bytes: usize) {
        let n = self.world.size() as usize;
        self.gather_sent
            .set(self.gather_sent.get() + (n - 1) * shard_bytes);
    }

    /// Frees a unit's whole codes, off the meter when `counted` (gathered at stage 3, a
    /// whole-unit gradient at stages 2 and 3).
    fn release(&self, whole: Vec<u16>, counted: bool) {
        if counted {
            self.meter.sub(2 * whole.len());
        }
    }

    /// The logits of `images` (no graph), and each unit's input when `keep`.
    pub(crate) fn forward(&self, images: &Tensor, keep: bool) -> (Tensor, Vec<Tensor>) {
        let (mut x, mut inputs) = (images.to_kind(Kind::BFloat16), vec![]);
        for (l, unit) in self.units.iter().enumerate() {
            let whole = self.whole(l);
            let params = params_of(unit, &whole, false);
            if keep {
                inputs.push(x.shallow_clone());
            }
            x = tch::no_grad(|| unit.forward(&x, &params));
            drop(params);
            self.release(whole, self.stage == Stage::Zero3);
        }
        (x, inputs)
    }

    /// One step on this rank's `images`, `labels`; returns its batch's loss (f32, mean).
    pub fn step(&mut self, images: &Tensor, labels: &Tensor) -> f64 {
        let (logits, inputs) = self.forward(images, true);
        let loss = logits.to_kind(Kind::Float).cross_entropy_for_logits(labels);
        let mut avg = vec![0f32; self.master.len()];
        let mut upstream: Option<Tensor> = None;
        for l in (0..self.units.len()).rev() {
            let unit = &self.units[l];
            let whole = self.whole(l);
            let params = params_of(unit, &whole, true);
            let input = inputs[l].detach().set_requires_grad(l > 0);
            let out = unit.forward(&input, &params);
            let z = match &upstream {
                None => out.to_kind(Kind::Float).cross_entropy_for_logits(labels),
                Some(g) => (&out * g).sum(Kind::Float),
            };
            let mut wrt: Vec<&Tensor> = params.iter().collect();
            if l > 0 {
                wrt.push(&input);
            }
            let mut grads = Tensor::run_backward(&[&z], &wrt, false, false);
            upstream = (l > 0).then(|| grads.pop().expect("the input's gradient"));
            let flat: Vec<Tensor> = grads.iter().map(|g| g.flatten(0, -1)).collect();
            let mut mine = to_bf16(
                &Vec::<f32>::try_from(Tensor::cat(&flat, 0).to_kind(Kind::Float)).expect("f32"),
            );
            mine.resize(unit.layout.padded, 0);
            if matches!(self.stage, Stage::Zero2 | Stage::Zero3) {
                self.meter.add(2 * mine.len()); // the whole-unit gradient, until scattered
            }
            drop((grads, params, out, z));
            self.release(whole, self.stage == Stage::Zero3);
            let range = self.ranges[l].clone();
            self.sum_unit(l, mine, &mut avg[range]);
        }
        self.adam.step(&mut self.master, &avg);
        self.refresh();
        loss.double_value(&[])
    }

    /// Unit `l`'s bf16 gradient `mine` (whole, padded) summed over the ranks in f32 and
    /// averaged; `avg` gets this rank's shard of it rounded to bf16 (as f32 values), and
    /// the stage keeps what it keeps between steps.
    fn sum_unit(&mut self, l: usize, mine: Vec<u16>, avg: &mut [f32]) {
        let n = self.world.size() as f32;
        let sum = SystemOperation::sum();
        let values = from_bf16(&mine);
        let mut summed = vec![0f32; avg.len()];
        match self.stage {
            Stage::Replicated => self
                .world
                .all_reduce_into(&values[..], &mut summed[..], sum),
            _ => self
                .world
                .reduce_scatter_block_into(&values[..], &mut summed[..], sum),
        }
        summed.iter_mut().for_each(|g| *g /= n);
        let shard = to_bf16(&summed);
        avg.copy_from_slice(&from_bf16(&shard));
        match self.stage {
            Stage::Replicated | Stage::Zero1 => self.grads[l] = mine,
            Stage::Zero2 | Stage::Zero3 => {
                self.release(mine, true);
                self.grads[l] = shard;
            }
        }
    }

    /// The master shards rounded to bf16 into the working copy (allgathered at stages 1
    /// and 2, where every rank keeps the whole of it).
    fn refresh(&mut self) {
        for l in 0..self.units.len() {
            let shard = to_bf16(&self.master[self.ranges[l].clone()]);
            match self.stage {
                Stage::Zero1 | Stage::Zero2 => self
                    .world
                    .all_gather_into(&shard[..], &mut self.working[l][..]),
                Stage::Replicated | Stage::Zero3 => self.working[l] = shard,
            }
        }
    }
}
