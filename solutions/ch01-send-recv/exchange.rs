//! Exercise 1.2: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=01 SOLUTION=1`, `cargo test -p ch01-send-recv --features solution`).

use crate::{neighbours, SHIFT_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: shift_right
/// Shift right with blocking calls, ordered by rank parity so that no cycle can form.
pub fn shift_right<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    mine: &[T],
    theirs: &mut [T],
) {
    let (rank, size) = (world.rank(), world.size());
    if size == 1 {
        // My left neighbour is me: a blocking send to myself could wait forever.
        theirs.copy_from_slice(mine);
        return;
    }
    let (left, right) = neighbours(rank, size);
    let (from, to) = (world.process_at_rank(left), world.process_at_rank(right));
    // Even ranks send first, odd ranks receive first. Rank 0 receives from the last rank,
    // which may also be even (odd sizes): then rank 0 waits, but rank 1 (odd) does not,
    // so the chain of waits always ends at an odd rank that is receiving.
    if rank % 2 == 0 {
        to.send_with_tag(mine, SHIFT_TAG);
        from.receive_into_with_tag(theirs, SHIFT_TAG);
    } else {
        from.receive_into_with_tag(theirs, SHIFT_TAG);
        to.send_with_tag(mine, SHIFT_TAG);
    }
}
// ANCHOR_END: shift_right
