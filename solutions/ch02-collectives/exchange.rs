//! Chapter 2 exercises 2.6 and 2.7: solutions.

use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allgather_ring
/// Allgather around a ring in p - 1 steps.
pub fn allgather_ring<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    mine: &[T],
) -> Vec<T> {
    let (rank, size) = (world.rank(), world.size());
    let n = mine.len();
    let block = |b: i32| (b as usize) * n..(b as usize + 1) * n;
    let mut all = vec![T::default(); n * size as usize];
    all[block(rank)].copy_from_slice(mine);
    let right = world.process_at_rank((rank + 1) % size);
    let left = world.process_at_rank((rank - 1 + size) % size);
    let mut outgoing = mine.to_vec();
    for s in 0..size - 1 {
        // send block rank - s (received in the step before), receive block rank - s - 1
        let incoming = block((rank - s - 1 + size) % size);
        send_receive_into(&outgoing[..], &right, &mut all[incoming.clone()], &left);
        outgoing.copy_from_slice(&all[incoming]);
    }
    all
}
// ANCHOR_END: allgather_ring

// ANCHOR: alltoall_pairwise
/// Alltoall by pairwise exchange in p - 1 steps.
pub fn alltoall_pairwise<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    send: &[T],
) -> Vec<T> {
    let (rank, size) = (world.rank(), world.size());
    assert_eq!(
        send.len() % size as usize,
        0,
        "send holds p blocks of equal length"
    );
    let n = send.len() / size as usize;
    let block = |b: i32| (b as usize) * n..(b as usize + 1) * n;
    let mut recv = vec![T::default(); send.len()];
    recv[block(rank)].copy_from_slice(&send[block(rank)]);
    for k in 1..size {
        let (to, from) = ((rank + k) % size, (rank - k + size) % size);
        let (dest, src) = (world.process_at_rank(to), world.process_at_rank(from));
        send_receive_into(&send[block(to)], &dest, &mut recv[block(from)], &src);
    }
    recv
}
// ANCHOR_END: alltoall_pairwise
