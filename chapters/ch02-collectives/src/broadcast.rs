//! Chapter 2 exercises 2.1 and 2.2: broadcast from point-to-point messages.
//!
//! Every rank calls these functions with the same `root` and a buffer of the same length;
//! afterwards every rank's buffer holds what `root`'s held. Check your work with
//! `make check CH=02`; the tests compare your result with MPI_Bcast (`reference`).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: broadcast_linear
/// Broadcast, linear: `root` sends `buf` to every other rank, one after the other; every
/// other rank receives into `buf`. p - 1 messages, all leaving the root: p - 1 rounds.
pub fn broadcast_linear<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    root: i32,
    buf: &mut [T],
) {
    // TODO(ex 2.1): root sends to each other rank; the others receive from root
    todo!("ex 2.1: broadcast by sending from the root to every other rank")
}
// ANCHOR_END: broadcast_linear

// ANCHOR: broadcast_binomial
/// Broadcast along a binomial tree: in each round every rank that already holds the data
/// sends it on, the distance halving from round to round (at 8 ranks: 0 sends to 4; then 0
/// to 2 and 4 to 6; then each even rank to the odd one after it), so the number of ranks
/// with the data doubles each round: ceil(log2 p) rounds.
///
/// Work with the relative rank `me = (rank - root + size) % size`, so the root is 0: `me`
/// receives from `me` with its lowest set bit cleared, then sends to `me + m` for each
/// power of two `m` below that bit, the largest first (those below `size`).
pub fn broadcast_binomial<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    root: i32,
    buf: &mut [T],
) {
    // TODO(ex 2.2): receive from your parent in the tree, then send to your children
    todo!("ex 2.2: broadcast along a binomial tree in ceil(log2 p) rounds")
}
// ANCHOR_END: broadcast_binomial
