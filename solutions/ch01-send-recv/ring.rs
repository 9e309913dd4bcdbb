//! Exercise 1.1: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=01 SOLUTION=1`, `cargo test -p ch01-send-recv --features solution`).

use crate::{neighbours, TOKEN_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::{Rank, SimpleCommunicator};
use mpi::traits::*;

// ANCHOR: pass_token
/// One lap of `token` around the ring; returns what this rank received and from whom.
pub fn pass_token<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    token: &[T],
) -> (Vec<T>, Rank) {
    let (rank, size) = (world.rank(), world.size());
    if size == 1 {
        // A receive from myself before any send would wait forever.
        return (token.to_vec(), 0);
    }
    let (left, right) = neighbours(rank, size);
    let (from, to) = (world.process_at_rank(left), world.process_at_rank(right));
    if rank == 0 {
        // communication: start the lap, then wait for the token to come back
        to.send_with_tag(token, TOKEN_TAG);
        let (back, status) = from.receive_vec_with_tag::<T>(TOKEN_TAG);
        (back, status.source_rank())
    } else {
        // communication: receive from the left, forward to the right
        let (got, status) = from.receive_vec_with_tag::<T>(TOKEN_TAG);
        to.send_with_tag(&got[..], TOKEN_TAG);
        (got, status.source_rank())
    }
}
// ANCHOR_END: pass_token
