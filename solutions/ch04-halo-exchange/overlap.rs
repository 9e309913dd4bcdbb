//! Exercise 4.5: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::field::Field;
use crate::halo::{Halo, SIDES};
use crate::stencil::{update_boundary, update_interior_polling};
use crate::topology::Neighbours;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: overlapped
/// One explicit time step, `src` -> `dst`, with the exchange hidden behind the interior
/// update, testing the requests between blocks of interior rows so that MPI moves the
/// edges while the interior is computed.
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
        // computation, while the edges travel: no interior cell reads a ghost. Between
        // blocks of rows, MPI_Test: without a call into MPI nothing moves a message that
        // needs a handshake (rendezvous) until the wait below.
        let mut pending: Vec<_> = requests.into_iter().map(Some).collect();
        update_interior_polling(src, dst, || {
            for slot in pending.iter_mut() {
                if let Some(request) = slot.take() {
                    *slot = request.test().err(); // still pending: keep it
                }
            }
        });
        for request in pending.into_iter().flatten() {
            request.wait();
        }
    });
    // The ghosts are only now valid: unpack them, then finish the ring next to them.
    halo.unpack_into(src, nb);
    update_boundary(src, dst);
}
// ANCHOR_END: overlapped
