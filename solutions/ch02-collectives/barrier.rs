//! Chapter 2 exercise 2.8: solution.

use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: barrier_dissemination
/// Barrier by dissemination in ceil(log2 p) rounds.
pub fn barrier_dissemination(world: &SimpleCommunicator) {
    let (rank, size) = (world.rank(), world.size());
    let mut d = 1;
    while d < size {
        let dest = world.process_at_rank((rank + d) % size);
        let src = world.process_at_rank((rank - d + size) % size);
        let mut token = 0u8;
        send_receive_into(&1u8, &dest, &mut token, &src);
        d <<= 1;
    }
}
// ANCHOR_END: barrier_dissemination
