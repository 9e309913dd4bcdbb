//! Exercise 1.3: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=01 SOLUTION=1`, `cargo test -p ch01-send-recv --features solution`).

use crate::{neighbours, TO_LEFT_TAG, TO_RIGHT_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: halo_exchange
/// Swaps edges with both neighbours: two immediate receives, two immediate sends, wait.
pub fn halo_exchange<T: Equivalence>(
    world: &SimpleCommunicator,
    to_left: &[T],
    to_right: &[T],
    from_left: &mut [T],
    from_right: &mut [T],
) {
    let (left, right) = neighbours(world.rank(), world.size());
    let (l, r) = (world.process_at_rank(left), world.process_at_rank(right));
    mpi::request::scope(|scope| {
        // communication: receives first, so that arriving data has a place to go.
        // My left neighbour sent its right edge, tagged "to the right".
        let recv_l = l.immediate_receive_into_with_tag(scope, from_left, TO_RIGHT_TAG);
        let recv_r = r.immediate_receive_into_with_tag(scope, from_right, TO_LEFT_TAG);
        let send_l = l.immediate_send_with_tag(scope, to_left, TO_LEFT_TAG);
        let send_r = r.immediate_send_with_tag(scope, to_right, TO_RIGHT_TAG);
        // Nothing has to arrive in order: wait for each; none blocks the others.
        recv_l.wait();
        recv_r.wait();
        send_l.wait();
        send_r.wait();
    });
}
// ANCHOR_END: halo_exchange
