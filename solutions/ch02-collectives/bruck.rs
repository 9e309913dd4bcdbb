//! Chapter 2 exercise 2.10: solution.

use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allgather_bruck
/// Bruck's allgather: what a rank holds doubles each round, then one local rotation.
pub fn allgather_bruck<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    mine: &[T],
) -> Vec<T> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let n = mine.len();
    let mut held = vec![T::default(); n * p];
    held[..n].copy_from_slice(mine);
    let mut d = 1;
    while d < p {
        let count = d.min(p - d) * n;
        let to = world.process_at_rank(((rank + p - d) % p) as i32);
        let from = world.process_at_rank(((rank + d) % p) as i32);
        let (sent, rest) = held.split_at_mut(d * n);
        send_receive_into(&sent[..count], &to, &mut rest[..count], &from);
        d *= 2;
    }
    // block i is rank (rank + i)'s: turning the whole buffer by `rank` blocks puts each
    // at its place
    held.rotate_right(rank * n);
    held
}
// ANCHOR_END: allgather_bruck
