//! Chapter 2 exercises 2.1 and 2.2: solutions.

use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: broadcast_linear
/// Broadcast, linear: `root` sends `buf` to every other rank, one after the other.
pub fn broadcast_linear<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    root: i32,
    buf: &mut [T],
) {
    if world.rank() == root {
        for r in (0..world.size()).filter(|&r| r != root) {
            world.process_at_rank(r).send(&buf[..]);
        }
    } else {
        world.process_at_rank(root).receive_into(buf);
    }
}
// ANCHOR_END: broadcast_linear

// ANCHOR: broadcast_binomial
/// Broadcast along a binomial tree rooted at `root`: ceil(log2 p) rounds.
pub fn broadcast_binomial<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    root: i32,
    buf: &mut [T],
) {
    let (rank, size) = (world.rank(), world.size());
    let me = (rank - root + size) % size; // relative rank: the root is 0
    let absolute = |relative: i32| (relative + root) % size;
    // Receive: my parent is me with my lowest set bit cleared.
    let mut mask = 1;
    while mask < size {
        if me & mask != 0 {
            world.process_at_rank(absolute(me - mask)).receive_into(buf);
            break;
        }
        mask <<= 1;
    }
    // Send: my children are me + m for every m below my lowest set bit, largest first.
    mask >>= 1;
    while mask > 0 {
        if me + mask < size {
            world.process_at_rank(absolute(me + mask)).send(&buf[..]);
        }
        mask >>= 1;
    }
}
// ANCHOR_END: broadcast_binomial
