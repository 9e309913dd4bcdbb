//! Given: the shared per-epoch shuffle, and what to do with the remainder.
//!
//! Every rank computes the same permutation of the dataset from (seed, epoch), with no
//! communication; the exercise (`sampler.rs`, ex 6.3) decides which part is whose, and
//! `batches.rs` cuts that part into the trainer's batches. This file uses neither.

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

/// SplitMix64 (the trainer kit's): the same seed gives the same stream on every rank and
/// every machine.
pub use trainer_kit::rng::SplitMix64;

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
