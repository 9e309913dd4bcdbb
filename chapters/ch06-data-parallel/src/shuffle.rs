//! Given: the shared per-epoch shuffle and the sampler the trainer iterates.
//!
//! Every rank computes the same permutation of the dataset from (seed, epoch), with no
//! communication; the exercise (`sampler.rs`, ex 6.3) decides which part is whose.

use std::ops::Range;

/// What to do with the last `len % ranks` samples, so that every rank gets as many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remainder {
    /// Repeat samples from the start of the epoch's order until `ranks` divides the length
    /// (PyTorch's default): every sample at least once, a few twice.
    Pad,
    /// Leave out the last `len % ranks` samples of the epoch's order: every sample at most
    /// once, a different few left out each epoch.
    Drop,
}

/// SplitMix64: a small, fast, well-mixed generator; the same seed gives the same stream on
/// every rank and every machine.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

// ANCHOR: shuffled
/// The epoch's order of `0..len`: a Fisher-Yates shuffle seeded by (seed, epoch). Same
/// arguments, same order, on every rank.
pub fn shuffled(len: usize, seed: u64, epoch: u64) -> Vec<usize> {
    let mut rng = SplitMix64(seed ^ epoch.wrapping_mul(0xd1b5_4a32_d192_ed03));
    let mut order: Vec<usize> = (0..len).collect();
    for i in (1..len).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}
// ANCHOR_END: shuffled

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
        crate::sampler::rank_indices(&order, self.ranks, self.rank, self.remainder)
    }

    /// Steps per epoch: full batches only, the same on every rank (a partial last batch
    /// is left out, like `drop_last=True`).
    pub fn steps_per_epoch(&self) -> usize {
        crate::sampler::samples_per_rank(self.len, self.ranks, self.remainder) / self.batch
    }

    /// Positions of step `step`'s batch within [`Sampler::epoch_indices`].
    pub fn batch_range(&self, step: usize) -> Range<usize> {
        step * self.batch..(step + 1) * self.batch
    }
}
