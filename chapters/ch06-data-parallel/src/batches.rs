//! Given: the sampler the trainer iterates: per epoch, the shared order (`shuffle.rs`),
//! this rank's part of it (`sampler.rs`, ex 6.3), cut into batches.

use crate::sampler::{rank_indices, samples_per_rank};
use crate::shuffle::{shuffled, Remainder};
use std::ops::Range;

/// This rank's view of the training set: per epoch, its samples in batches of `batch`.
#[derive(Clone, Debug)]
pub struct Sampler {
    pub len: usize,
    pub ranks: usize,
    pub rank: usize,
    pub seed: u64,
    pub remainder: Remainder,
    /// Samples per rank per step (the global batch / ranks).
    pub batch: usize,
}

impl Sampler {
    /// This rank's samples in `epoch` (ex 6.3 decides which).
    pub fn epoch_indices(&self, epoch: u64) -> Vec<usize> {
        let order = shuffled(self.len, self.seed, epoch);
        rank_indices(&order, self.ranks, self.rank, self.remainder)
    }

    /// Steps per epoch: full batches only, the same on every rank (a partial last batch
    /// is left out, like `drop_last=True`).
    pub fn steps_per_epoch(&self) -> usize {
        samples_per_rank(self.len, self.ranks, self.remainder) / self.batch
    }

    /// Positions of step `step`'s batch within [`Sampler::epoch_indices`].
    pub fn batch_range(&self, step: usize) -> Range<usize> {
        step * self.batch..(step + 1) * self.batch
    }
}
