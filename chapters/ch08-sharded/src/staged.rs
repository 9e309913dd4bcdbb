//! Given: the step of stages 0, 1 and 2 on a GPU (`zero --device cuda`), its collectives
//! staged through host buffers.
//!
//! The parameters (the flat buffer the model's tensors live in), the gradient the stage
//! keeps and Adam's m and v live on the device, and the model computes there. MPI reads
//! and writes host memory (a plain MPI cannot read device pointers), so each collective
//! goes through a host staging buffer, as chapter 6's bridge stages its gradients: the whole flat
//! gradient is copied to the host, reduce-scattered (stage 0: allreduced) there and this
//! rank's averaged shard copied back; Adam updates the shard on the device; the shard is
//! copied to the host, allgathered there and the whole buffer copied back.
//!
//! Run: `cargo run --release -p ch08-sharded --features solution --bin zero -- --device
//! cuda --stage 2` on a machine with a GPU and a CUDA LibTorch (`make gpu-kit` runs it).

use crate::halves::Halves;
use crate::memory::Stage;
use crate::shards::{FlatParams, Layout, ShardAdam};
use tch::{Device, Kind, Tensor};

/// The host buffers one rank's collectives run on, allocated once and kept between steps.
pub struct Staging {
    /// The whole flat gradient (N * S), copied from the device: the reduce-scatter's (stage
    /// 0: the allreduce's) input.
    pub grads: Vec<f32>,
    /// This rank's summed gradient shard (S): the reduce-scatter's output (stages 1, 2).
    pub shard: Vec<f32>,
    /// The whole flat parameter buffer (N * S): the allgather's output (stages 1, 2).
    pub params: Vec<f32>,
}

impl Staging {
    /// The buffers `stage` needs for `layout` (stage 0 allreduces the gradient only).
    pub fn new(stage: Stage, layout: &Layout) -> Staging {
        let sharded = stage != Stage::Replicated;
        let len = |n: usize| if sharded { n } else { 0 };
        Staging {
            grads: vec![0.0; layout.padded],
            shard: vec![0.0; len(layout.shard)],
            params: vec![0.0; len(layout.padded)],
        }
    }

    /// Bytes of host memory held, measured from the buffers.
    pub fn bytes(&self) -> usize {
        (self.grads.len() + self.shard.len() + self.params.len()) * std::mem::size_of::<f32>()
    }
}

/// Bytes of host staging by formula, for `padded` = N * S elements and a shard of `shard`:
/// 4NS at stage 0; 4(2NS + S) at stages 1 and 2.
pub fn staging_formula(stage: Stage, padded: usize, shard: usize) -> usize {
    match stage {
        Stage::Replicated => 4 * padded,
        _ => 4 * (2 * padded + shard),
    }
}

/// One rank's device-side state besides the parameters and Adam: the gradient the stage
/// keeps between steps (on the device) and the host staging buffers.
pub struct OnDevice {
    pub device: Device,
    pub staging: Staging,
    /// Stages 0 and 1: the whole flat gradient (N * S); stage 2: the averaged shard (S).
    pub kept: Option<Tensor>,
}

impl OnDevice {
    /// Nothing kept yet, and `stage`'s staging buffers for `layout`.
    pub fn new(device: Device, stage: Stage, layout: &Layout) -> OnDevice {
        let staging = Staging::new(stage, layout);
        OnDevice {
            device,
            staging,
            kept: None,
        }
    }

    /// Bytes of gradient kept on the device between steps.
    pub fn grad_bytes(&self) -> usize {
        self.kept.as_ref().map_or(0, Tensor::numel) * std::mem::size_of::<f32>()
    }

    /// One step after the backward: `grads` (the model's, on the device, in flat order)
    /// averaged over the ranks through `halves` (stage 0: `allreduce`, the sum in place on
    /// a host buffer), then Adam on this rank's part of `flat`, then (stages 1, 2) every
    /// rank's updated shard gathered into `flat`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        stage: Stage,
        halves: &dyn Halves,
        allreduce: &dyn Fn(&mut [f32]),
        layout: &Layout,
        flat: &FlatParams,
        adam: &mut ShardAdam,
        grads: &[Tensor],
    ) {
        let ranks = halves.ranks() as f64;
        let mut full = Tensor::zeros([layout.padded as i64], (Kind::Float, self.device));
        let parts: Vec<Tensor> = grads.iter().map(|g| g.flatten(0, -1)).collect();
        tch::no_grad(|| {
            full.narrow(0, 0, layout.params as i64)
                .copy_(&Tensor::cat(&parts, 0))
        });
        drop(parts);
        let s = &mut self.staging;
        full.copy_data(&mut s.grads, layout.padded); // device -> host
        let (start, len) = (layout.mine.start as i64, layout.shard as i64);
        if stage == Stage::Replicated {
            allreduce(&mut s.grads);
            tch::no_grad(|| full.copy_(&Tensor::from_slice(&s.grads))); // host -> device
            let full = full / ranks;
            adam.step_tensor(flat.tensor(), &full);
            self.kept = Some(full);
            return;
        }
        halves.sum_scatter(&s.grads, &mut s.shard);
        let shard = Tensor::from_slice(&s.shard).to_device(self.device) / ranks;
        let mine = flat.tensor().narrow(0, start, len);
        adam.step_tensor(&mine, &shard);
        mine.copy_data(&mut s.params[layout.mine.clone()], layout.shard); // device -> host
                                                                          // rsmpi lends no in-place allgather: my shard goes out of a copy (as in ex 8.2).
        let out = s.params[layout.mine.clone()].to_vec();
        halves.gather_all(&out, &mut s.params);
        let mut dst = flat.tensor().shallow_clone();
        tch::no_grad(|| dst.copy_(&Tensor::from_slice(&s.params))); // host -> device
                                                                    // ZeRO-1 keeps the whole gradient and frees its shard; ZeRO-2 the other way round.
        self.kept = Some(if stage == Stage::Zero1 { full } else { shard });
    }
}
