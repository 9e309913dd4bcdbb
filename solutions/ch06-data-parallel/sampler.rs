//! Chapter 6 exercise 6.3: the distributed sampler (solution).

use crate::shuffle::Remainder;

// ANCHOR: samples_per_rank
/// How many samples each rank gets: rounded up (pad) or down (drop).
pub fn samples_per_rank(len: usize, ranks: usize, remainder: Remainder) -> usize {
    match remainder {
        Remainder::Pad => len.div_ceil(ranks),
        Remainder::Drop => len / ranks,
    }
}
// ANCHOR_END: samples_per_rank

// ANCHOR: rank_indices
/// Rank `rank`'s samples: the order padded or cut to a multiple of `ranks`, strided.
pub fn rank_indices(
    order: &[usize],
    ranks: usize,
    rank: usize,
    remainder: Remainder,
) -> Vec<usize> {
    let total = samples_per_rank(order.len(), ranks, remainder) * ranks;
    // Position i of the padded order is order[i % len]: the padding repeats the start.
    let at = |i: usize| order[i % order.len()];
    (rank..total).step_by(ranks).map(at).collect()
}
// ANCHOR_END: rank_indices
