//! Chapter 2 exercise 2.10: Bruck's allgather. The dissemination barrier's pattern (ex
//! 2.8) carrying data: in the round with distance `d = 1, 2, 4, ...` every rank sends the
//! blocks it holds to `rank - d` and receives as many from `rank + d`, so what it holds
//! doubles each round. `ceil(log2 p)` rounds instead of the ring's `p - 1`, the same
//! `(p - 1) n` items received. Check with `make check CH=02`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allgather_bruck
/// Bruck's allgather: every rank passes `mine` (the same length n on all ranks) and
/// returns all p blocks in rank order (p * n items), as [`super::exchange::allgather_ring`].
///
/// Keep a buffer `held` of blocks in the order "mine, then rank + 1's, rank + 2's, ...":
/// start it with `mine`. In the round with distance `d` (1, 2, 4, ... while `d < p`),
/// send the first `min(d, p - d)` blocks of `held` to rank `rank - d` and receive that
/// many blocks from rank `rank + d` (modulo p, one `send_receive_into`), appended to
/// `held`. At the end `held` has p blocks, block i being rank `(rank + i) % p`'s: put each
/// in its place in rank order.
pub fn allgather_bruck<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    mine: &[T],
) -> Vec<T> {
    // TODO(ex 2.10): ceil(log2 p) rounds of send-receive, then the blocks in rank order
    todo!("ex 2.10: Bruck's allgather in ceil(log2 p) rounds")
}
// ANCHOR_END: allgather_bruck
