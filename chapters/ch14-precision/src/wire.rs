//! Chapter 14 exercise 14.2: a sum over the ranks with bf16 on the wire that rounds only
//! once. The ring of `crate::ring` rounds a chunk's partial sum at every hop; here every
//! rank's codes of chunk `c` go straight to rank `c` (one all-to-all-v, the same bytes as
//! the ring's reduce-scatter), rank `c` adds them in f32 and rounds once, and an
//! allgather-v brings the chunks back. Check with `make check CH=14`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::encode::encode;
use crate::format::BF16;
use ch03::chunk_range;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

// ANCHOR: sum_one_rounding
/// The sum over the ranks of `codes` (bf16 codes, the same length `n` on every rank),
/// rounded to bf16 once. Rank `c` owns chunk `c` (`chunk_range(n, p, c)`):
/// 1. one `all_to_all_varcount_into`: chunk `c` of every rank to rank `c`, in rank order;
/// 2. on rank `c`, element by element: the p values decoded and added in f32 in rank
///    order (starting from `0.0`), the total encoded to bf16 once (ex 14.1);
/// 3. one `all_gather_varcount_into` of the owned chunks: every rank gets every chunk.
pub fn sum_bf16_one_rounding(world: &SimpleCommunicator, codes: &[u16]) -> Vec<u16> {
    // TODO(ex 14.2): all-to-all-v of the chunks to their owners, f32 sums in rank order rounded once, allgather-v
    todo!("ex 14.2: bf16 on the wire, f32 in the sums, one rounding")
}
// ANCHOR_END: sum_one_rounding
