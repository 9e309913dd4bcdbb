//! Given: a [`MixedZero`] trained and read: its steps over the digits (the global batch
//! the same samples at every rank count, rank r the r-th slice), its test accuracy, and
//! its f32 master weights gathered from the shards; and the signature of ex 14.5's FP8
//! allgather, which stage 3 can gather its layers with. Nothing to run here: the
//! `zero_mixed` lab and the tests use it.

use crate::zero::MixedZero;
use ch06::data::Split;
use ch06::shuffle::shuffled;
use ch08::memory::Stage;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Kind;

/// Ex 14.5's `gather_fp8` (or a planted mistake): this rank's shard of one tensor
/// allgathered in FP8 into the whole tensor; returns the scale.
pub type GatherFp8 = fn(&SimpleCommunicator, &[f32], &mut [f32]) -> f32;

impl MixedZero<'_> {
    /// Every unit's f32 master weights, gathered from the shards (padding left out), in
    /// forward order: the same on every rank.
    pub fn gathered_master(&self) -> Vec<f32> {
        let mut all = vec![];
        for (unit, range) in self.units.iter().zip(&self.ranges) {
            let mut whole = self.master[range.clone()].to_vec();
            if self.stage != Stage::Replicated {
                whole = vec![0f32; unit.layout.padded];
                self.world
                    .all_gather_into(&self.master[range.clone()], &mut whole[..]);
            }
            all.extend_from_slice(&whole[..unit.params()]);
        }
        all
    }

    /// `steps` steps on `data`'s training images, `batch` samples a step over all ranks
    /// (rank r the r-th slice), in the order of `seed`; returns each step's loss, the
    /// mean over the ranks.
    pub fn fit(&mut self, data: &Split, batch: usize, steps: usize, seed: u64) -> Vec<f64> {
        let (rank, p) = (self.world.rank() as usize, self.world.size() as usize);
        let per_epoch = data.train.len() / batch;
        let mut losses = vec![];
        for n in 0..steps {
            let order = shuffled(data.train.len(), seed, (n / per_epoch) as u64);
            let part = &order[crate::trainer::slice(n % per_epoch, rank, p, batch)];
            let (images, labels) = data.train.batch(part);
            let mut sum = 0f64;
            let loss = self.step(&images, &labels);
            self.world
                .all_reduce_into(&loss, &mut sum, SystemOperation::sum());
            losses.push(sum / p as f64);
        }
        losses
    }

    /// Accuracy (%) on `data`'s test images.
    pub fn accuracy(&self, data: &Split) -> f64 {
        let (logits, _) = self.forward(&data.test.images, false);
        let right = logits.argmax(1, false).eq_tensor(&data.test.labels);
        100.0 * right.sum(Kind::Int64).int64_value(&[]) as f64 / data.test.len() as f64
    }
}
