//! Exercises 4.3 and 4.4: solutions. Compiled instead of the stubs by `--features
//! solution` (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::halo::{Halo, Side};
use crate::topology::Neighbours;
use mpi::point_to_point as p2p;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

/// The four shifts of an exchange: (the side I send to, the side I receive from), axis.
const SHIFTS: [(Side, Side, usize); 4] = [
    (Side::South, Side::North, 0),
    (Side::North, Side::South, 0),
    (Side::East, Side::West, 1),
    (Side::West, Side::East, 1),
];

// ANCHOR: blocking
/// Fills `halo.recv` from the neighbours' `halo.send` with blocking sends and receives.
pub fn exchange_blocking(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    let me = cart.rank();
    for (to, from, axis) in SHIFTS {
        let (out, into) = (&halo.send[to as usize], &mut halo.recv[from as usize]);
        // Alone along a periodic axis, my neighbour is myself: a blocking send to myself
        // would wait for a receive I have not posted yet. Copy instead.
        if nb.of(to) == Some(me) {
            into.copy_from_slice(out);
            continue;
        }
        // Every message of this shift travels towards `to`, so it carries `to.tag()`.
        let send = || {
            if let Some(d) = nb.of(to) {
                cart.process_at_rank(d).send_with_tag(&out[..], to.tag());
            }
        };
        // Even process coordinates send first, odd ones receive first: in any chain or
        // ring along the axis, some rank receives first, so no cycle of senders forms.
        let even = nb.coords[axis] % 2 == 0;
        if even {
            send();
        }
        if let Some(s) = nb.of(from) {
            cart.process_at_rank(s)
                .receive_into_with_tag(&mut into[..], to.tag());
        }
        if !even {
            send();
        }
    }
}
// ANCHOR_END: blocking

// ANCHOR: sendrecv
/// Fills `halo.recv` from the neighbours' `halo.send`, one `MPI_Sendrecv` per shift.
pub fn exchange_sendrecv(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    for (to, from, _) in SHIFTS {
        let (out, into) = (&halo.send[to as usize], &mut halo.recv[from as usize]);
        let tag = to.tag();
        match (nb.of(to), nb.of(from)) {
            (Some(d), Some(s)) => {
                let (dest, src) = (cart.process_at_rank(d), cart.process_at_rank(s));
                p2p::send_receive_into_with_tags(&out[..], &dest, tag, &mut into[..], &src, tag);
            }
            // At a fixed edge only one half exists (MPI would take MPI_PROC_NULL).
            (Some(d), None) => cart.process_at_rank(d).send_with_tag(&out[..], tag),
            (None, Some(s)) => {
                cart.process_at_rank(s)
                    .receive_into_with_tag(&mut into[..], tag);
            }
            (None, None) => {}
        }
    }
}
// ANCHOR_END: sendrecv
