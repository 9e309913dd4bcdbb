//! Chapter 2 exercises 2.6 and 2.7: everyone-to-everyone exchanges.
//!
//! Allgather: every rank ends with every rank's block. Alltoall: every rank sends a
//! different block to each rank (a transpose of blocks across ranks). Both are built from
//! `mpi::point_to_point::send_receive_into`, which sends and receives at once and so
//! cannot deadlock in a ring. Check with `make check CH=02`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allgather_ring
/// Allgather around a ring: every rank passes `mine` (the same length n on all ranks)
/// and returns all p blocks in rank order (p * n items).
///
/// Put your block in place; then in each of p - 1 steps send to `right = rank + 1` the
/// block you received last (your own first) and receive from `left = rank - 1` the
/// next one (both modulo p). In step s you send block `rank - s` and receive block
/// `rank - s - 1`.
pub fn allgather_ring<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    mine: &[T],
) -> Vec<T> {
    // TODO(ex 2.6): p - 1 ring steps, each a send-receive of one block
    todo!("ex 2.6: allgather around a ring in p - 1 steps")
}
// ANCHOR_END: allgather_ring

// ANCHOR: alltoall_pairwise
/// Alltoall by pairwise exchange: `send` holds p blocks of n items (`send.len()` is a
/// multiple of p); block j goes to rank j. Return p blocks where block i is what rank i
/// sent to this rank.
///
/// Copy your own block; then in step k = 1 .. p-1 send block `rank + k` to rank
/// `rank + k` and receive block `rank - k` from rank `rank - k` (modulo p).
pub fn alltoall_pairwise<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    send: &[T],
) -> Vec<T> {
    // TODO(ex 2.7): p - 1 steps, in step k exchange with rank + k and rank - k
    todo!("ex 2.7: alltoall as p - 1 pairwise send-receives")
}
// ANCHOR_END: alltoall_pairwise
