//! Chapter 14 exercise 14.2: solution.

use crate::encode::encode;
use crate::format::BF16;
use ch03::chunk_range;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

// ANCHOR: sum_one_rounding
/// Chunk `c` of every rank to rank `c`; sums in f32 in rank order, one rounding; allgather.
pub fn sum_bf16_one_rounding(world: &SimpleCommunicator, codes: &[u16]) -> Vec<u16> {
    let (p, r, n) = (world.size() as usize, world.rank() as usize, codes.len());
    let counts: Vec<Count> = (0..p)
        .map(|c| chunk_range(n, p, c).len() as Count)
        .collect();
    let starts: Vec<Count> = (0..p)
        .map(|c| chunk_range(n, p, c).start as Count)
        .collect();
    let len = counts[r] as usize;
    let mut got = vec![0u16; p * len];
    let each: Vec<Count> = (0..p).map(|s| (s * len) as Count).collect();
    world.all_to_all_varcount_into(
        &Partition::new(codes, &counts[..], &starts[..]),
        &mut PartitionMut::new(&mut got[..], vec![len as Count; p], each),
    );
    let sums: Vec<u16> = (0..len)
        .map(|i| {
            let total = (0..p).fold(0f32, |acc, s| acc + BF16.decode(got[s * len + i]));
            encode(&BF16, total)
        })
        .collect();
    let mut all = vec![0u16; n];
    world.all_gather_varcount_into(
        &sums[..],
        &mut PartitionMut::new(&mut all[..], &counts[..], &starts[..]),
    );
    all
}
// ANCHOR_END: sum_one_rounding
