//! A check of ex 2.10 that says which block went where, shared by its test and its planted
//! mistake: rank r's block is two items equal to r, so each place of the result names the
//! rank whose block landed there.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::lockstep::agree;

/// An allgather to check: ex 2.6's or ex 2.10's, or a planted mistake.
pub type Allgather<T> = fn(&SimpleCommunicator, &[T]) -> Vec<T>;

// ANCHOR: blocks_in_place
/// Ex 2.10 (or a planted mistake) with rank r's block two items equal to r: each place of
/// the result must hold the block of the rank of that place. A wrong order is named by
/// what it looks like: the gathered order not rotated back, or blocks from the wrong side.
pub fn blocks_in_place(world: &SimpleCommunicator, f: Allgather<i64>) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let got = f(world, &[rank as i64; 2]);
    let labels: Vec<i64> = got.chunks(2).map(|b| b[0]).collect();
    let places = |g: &dyn Fn(usize) -> usize| (0..p).map(|j| g(j) as i64).collect::<Vec<_>>();
    // what held block i was, if the final placement put it at (rank + i) % p
    let held: Vec<i64> = (0..p)
        .map(|i| labels.get((rank + i) % p).copied().unwrap_or(-1))
        .collect();
    let mine = if got.len() != 2 * p {
        Err(format!("allgather_bruck at {p} ranks returned {} items on rank {rank}, want {} (p blocks of 2)", got.len(), 2 * p))
    } else if labels == places(&|j| j) {
        Ok(())
    } else if labels == places(&|j| (rank + j) % p) {
        Err(format!("allgather_bruck at {p} ranks: rank {rank} holds the blocks of ranks {labels:?}, in the order it gathered them (its own first): put block i of what it holds at place (rank + i) % p"))
    } else if held == places(&|i| (rank + p - i) % p) {
        Err(format!("allgather_bruck at {p} ranks: rank {rank} holds the blocks of ranks {labels:?}: they came from the wrong side; in the round with distance d send to rank - d and receive from rank + d"))
    } else {
        Err(format!("allgather_bruck at {p} ranks: rank {rank} holds the blocks of ranks {labels:?} at places 0..{p}, want each rank's at its own place: in the round with distance d send the first min(d, p - d) blocks held, receive as many after them"))
    };
    agree(world, mine)
}
// ANCHOR_END: blocks_in_place
