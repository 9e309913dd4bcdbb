//! Exercise 4.5: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::field::Field;
use crate::halo::{Halo, SIDES};
use crate::stencil::{update_boundary, update_interior};
use crate::topology::Neighbours;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: overlapped
/// One explicit time step, `src` -> `dst`, with the exchange hidden behind the interior update.
pub fn step_overlapped(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    halo.pack_from(src);
    let (send, recv) = (&halo.send, &mut halo.recv);
    mpi::request::scope(|scope| {
        let mut requests = vec![];
        // communication: post the receives first, so arriving edges have a place to go.
        for (side, buf) in SIDES.iter().zip(recv.iter_mut()) {
            if let Some(r) = nb.of(*side) {
                let p = cart.process_at_rank(r);
                let tag = side.opposite().tag(); // it travelled away from its own side
                requests.push(p.immediate_receive_into_with_tag(scope, &mut buf[..], tag));
            }
        }
        for (side, buf) in SIDES.iter().zip(send.iter()) {
            if let Some(r) = nb.of(*side) {
                let p = cart.process_at_rank(r);
                requests.push(p.immediate_send_with_tag(scope, &buf[..], side.tag()));
            }
        }
        // computation, while the edges travel: no interior cell reads a ghost.
        update_interior(src, dst);
        for request in requests {
            request.wait();
        }
    });
    // The ghosts are only now valid: unpack them, then finish the ring next to them.
    halo.unpack_into(src, nb);
    update_boundary(src, dst);
}
// ANCHOR_END: overlapped
