//! Chapter 0 exercises: solutions.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;

// ANCHOR: block_range
/// The slice of `0..len` that `rank` owns: the first `len % size` ranks get one more.
pub fn block_range(len: usize, size: usize, rank: usize) -> Range<usize> {
    let (base, extra) = (len / size, len % size);
    let start = rank * base + rank.min(extra);
    let own = base + usize::from(rank < extra);
    start..start + own
}
// ANCHOR_END: block_range

// ANCHOR: gather_to_root
/// Rank 0 gets every rank's value in rank order; the others get `None`.
pub fn gather_to_root(world: &SimpleCommunicator, value: i64) -> Option<Vec<i64>> {
    let root = world.process_at_rank(0);
    if world.rank() == 0 {
        let mut all = vec![0i64; world.size() as usize];
        root.gather_into_root(&value, &mut all[..]);
        Some(all)
    } else {
        root.gather_into(&value);
        None
    }
}
// ANCHOR_END: gather_to_root

// ANCHOR: global_sum
/// The element-wise sum of every rank's vector, on every rank.
pub fn global_sum(world: &SimpleCommunicator, values: &[i64]) -> Vec<i64> {
    let mut sum = vec![0i64; values.len()];
    world.all_reduce_into(values, &mut sum[..], SystemOperation::sum());
    sum
}
// ANCHOR_END: global_sum
