//! Given: ZeRO-3 on a GPU (`zero --stage 3 --device cuda`), its collectives staged through
//! host buffers. The executor (`crate::zero3`) and ex 8.3's backward are the host path's;
//! what changes is where the state lives and how a layer gets to the collectives.
//!
//! On the device: this rank's shards of every layer, their averaged gradients, Adam's m
//! and v, and each gathered layer while it computes (the model's arithmetic runs there).
//! On the host, allocated once for the largest layer (L_max padded elements, S_max a
//! shard): the allgather's input (S_max: this rank's shard of the layer, copied from the
//! device) and output (L_max: the whole layer, then copied to the device); the
//! reduce-scatter's output (S_max: this rank's averaged gradient shard, then copied to
//! the device). The reduce-scatter's input is the layer's whole gradient, which ex 8.3's
//! `backward_layer` packs from the device into a host buffer counted on the meter, as on
//! the CPU. With prefetch the next layer's MPI_Iallgather runs on the same two host
//! buffers: the current layer is already on the device when it is posted.
//!
//! Run: `cargo run --release -p ch08-sharded --features solution --bin zero -- --stage 3
//! --device cuda` on a machine with a GPU and a CUDA LibTorch (`make gpu-kit` runs it);
//! tests/staged3.rs runs the same code with Device::Cpu against the host path.

use crate::halves::Halves;
use crate::layers::{Counted, Meter};
use crate::shards::ShardAdam;
use crate::zero3::Sharded;
use std::cell::{RefCell, RefMut};
use std::ops::Range;
use tch::{Device, Kind, Tensor};

/// The host buffers a rank's stage-3 collectives run on, allocated once, each for the
/// largest layer.
pub struct Staging3 {
    /// This rank's shard of a layer, copied from the device: the allgather's input.
    pub shard: RefCell<Vec<f32>>,
    /// The whole layer gathered: the allgather's output, copied to the device.
    pub gathered: RefCell<Vec<f32>>,
    /// This rank's averaged gradient shard of a layer: the reduce-scatter's output.
    pub grad_shard: Vec<f32>,
}

impl Staging3 {
    /// Bytes of host memory held, measured from the buffers.
    pub fn bytes(&self) -> usize {
        let elems = self.shard.borrow().len() + self.gathered.borrow().len();
        (elems + self.grad_shard.len()) * std::mem::size_of::<f32>()
    }
}

/// Bytes of stage 3's host staging by formula, for the layers' padded lengths `padded`
/// (N * S_l each) over `ranks` ranks: 4(L_max + 2 S_max).
pub fn staging3_formula(padded: &[usize], ranks: usize) -> usize {
    let l_max = padded.iter().copied().max().unwrap_or(0);
    4 * (l_max + 2 * l_max / ranks)
}

/// One rank's stage-3 state on a device, and its host staging.
pub struct OnDevice3 {
    pub device: Device,
    /// This rank's shards of every layer, one after another (as `Sharded::shards`).
    pub shards: Tensor,
    /// Their averaged gradients, kept between steps.
    pub grad_shards: Tensor,
    pub staging: Staging3,
}

/// Copies `host` into the tensor `dst` (any device), which holds as many elements.
pub fn upload(dst: &Tensor, host: &[f32]) {
    let mut dst = dst.shallow_clone();
    tch::no_grad(|| dst.copy_(&Tensor::from_slice(host)));
}

impl OnDevice3 {
    /// `shards` (this rank's, every layer's, as the host path holds them) moved to
    /// `device`, the gradients zeros there, and staging for layers of `padded` elements.
    pub fn new(device: Device, shards: &[f32], padded: &[usize], ranks: usize) -> OnDevice3 {
        let l_max = padded.iter().copied().max().unwrap_or(0);
        let s_max = l_max / ranks;
        let on = Tensor::from_slice(shards).to_device(device);
        let grad_shards = Tensor::zeros([shards.len() as i64], (Kind::Float, device));
        let staging = Staging3 {
            shard: RefCell::new(vec![0.0; s_max]),
            gathered: RefCell::new(vec![0.0; l_max]),
            grad_shard: vec![0.0; s_max],
        };
        OnDevice3 {
            device,
            shards: on,
            grad_shards,
            staging,
        }
    }

    /// The staging buffers (shard, gathered), with this rank's shard `range` of the
    /// device's shards copied into the first: ready for an allgather.
    pub fn stage(&self, range: Range<usize>) -> (RefMut<'_, Vec<f32>>, RefMut<'_, Vec<f32>>) {
        let mut shard = self.staging.shard.borrow_mut();
        let len = range.len();
        let mine = self.shards.narrow(0, range.start as i64, len as i64);
        mine.copy_data(&mut shard[..len], len); // device -> host
        (shard, self.staging.gathered.borrow_mut())
    }

    /// The layer whose shard is `range` (of `padded` elements in all) gathered through the
    /// host staging, blocking, into a buffer on the device counted on `meter`.
    pub fn gather<'m>(
        &self,
        halves: &dyn Halves,
        range: Range<usize>,
        padded: usize,
        meter: &'m Meter,
    ) -> Counted<'m> {
        let full = Counted::zeros_on(padded, meter, self.device);
        let len = range.len();
        let (shard, mut gathered) = self.stage(range);
        halves.gather_all(&shard[..len], &mut gathered[..padded]);
        upload(&full.flat, &gathered[..padded]); // host -> device
        full
    }

    /// Keeps `host` (a layer's averaged gradient shard, from the staging) at `range` of
    /// the device's gradient shards.
    pub fn keep_grad(&self, range: Range<usize>, host: &[f32]) {
        let dst = self
            .grad_shards
            .narrow(0, range.start as i64, range.len() as i64);
        upload(&dst, host);
    }

    /// A copy of the device's shards on the host (for checkpoints and checks).
    pub fn shards_on_host(&self) -> Vec<f32> {
        let host = self.shards.to_device(Device::Cpu);
        Vec::<f32>::try_from(host).expect("f32 shards")
    }
}

impl Sharded {
    /// Moves this rank's shards, their gradients and Adam's state (m, v, step count; Adam
    /// at rate `lr`) to `device`, with host staging for the collectives: the staged path,
    /// the same code on any device, Device::Cpu included.
    pub fn stage_on(&mut self, device: Device, lr: f64) {
        let padded: Vec<usize> = self.units.iter().map(|u| u.layout.padded).collect();
        let ranks = self.units[0].layout.ranks;
        let mut on = OnDevice3::new(device, &self.shards, &padded, ranks);
        upload(&on.grad_shards, &self.grad_shards);
        let ((m, v), steps) = (self.adam.moments(), self.adam.steps());
        self.adam = ShardAdam::new_on(lr, self.shards.len(), device);
        self.adam.restore(&m, &v, steps);
        (self.shards, self.grad_shards) = (vec![], vec![]);
        on.staging.grad_shard.fill(0.0);
        self.on_device = Some(on);
    }

    /// Where the shards live and the units compute.
    pub fn device(&self) -> Device {
        self.on_device.as_ref().map_or(Device::Cpu, |d| d.device)
    }

    /// This rank's shards of every unit, on the host (a copy from the device if staged).
    pub fn shard_values(&self) -> Vec<f32> {
        match &self.on_device {
            None => self.shards.clone(),
            Some(d) => d.shards_on_host(),
        }
    }
}
