//! Chapter 3 exercises 3.1 and 3.2: the two halves of the ring allreduce.
//!
//! The vector (the same length on every rank) is cut into p chunks by
//! [`crate::chunk_range`]. Rank r sends to its right neighbour `(r + 1) % p` and receives
//! from its left neighbour `(r - 1 + p) % p`, p - 1 times per phase. Check with
//! `make check CH=03`; the tests compare with MPI_Allreduce at 1, 2, 3, 4, 5 and 8 ranks.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_scatter_ring
/// Ring reduce-scatter, in place. Afterwards chunk [`crate::owned_chunk`]`(rank, p)` of
/// `data` holds `x_0 ∘ ... ∘ x_{p-1}` on that chunk; the other chunks hold partial
/// results (anything).
///
/// In step s = 0, 1, ..., p-2, rank r sends chunk `(r - s) mod p` to the right and
/// receives chunk `(r - s - 1) mod p` from the left into a separate buffer, then reduces
/// that buffer into its own copy of the chunk. Use `send_receive_into`, so that no rank
/// waits for a send nobody receives yet.
pub fn reduce_scatter_ring<T: Elem>(world: &SimpleCommunicator, data: &mut [T], op: Op) {
    // TODO(ex 3.1): p - 1 steps of send chunk (r - s), receive chunk (r - s - 1), reduce
    todo!("ex 3.1: ring reduce-scatter in place")
}
// ANCHOR_END: reduce_scatter_ring

// ANCHOR: allgather_ring
/// Ring allgather, in place. On entry rank r's chunk [`crate::owned_chunk`]`(r, p)`
/// holds final values; on return every chunk does (every rank holds the whole vector).
///
/// In step s = 0, 1, ..., p-2, rank r sends chunk `(r + 1 - s) mod p` (the one it got
/// last) to the right and receives chunk `(r - s) mod p` from the left, straight into
/// place ([`crate::split_chunks`] lends both parts of `data` at once).
pub fn allgather_ring<T: Elem>(world: &SimpleCommunicator, data: &mut [T]) {
    // TODO(ex 3.2): p - 1 steps of send chunk (r + 1 - s), receive chunk (r - s) into place
    todo!("ex 3.2: ring allgather in place")
}
// ANCHOR_END: allgather_ring
