//! Exercises 4.3 and 4.4: the halo exchange with blocking calls, then with `MPI_Sendrecv`.
//!
//! Both fill `halo.recv` from the neighbours' `halo.send`; packing and unpacking are done
//! by the caller ([`crate::halo::Halo::pack_from`], [`crate::halo::Halo::unpack_into`]).
//! Check: `make check CH=04` (tests `ex4_3_*`, `ex4_4_*`: your exchange inside the solver
//! equals the serial solver bit for bit, at 1 to 8 ranks, rows up to 8 KiB).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::halo::{Halo, Side};
use crate::topology::Neighbours;
use mpi::point_to_point as p2p;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: blocking
/// Fills `halo.recv` from the neighbours' `halo.send` with blocking `send_with_tag` and
/// `receive_into_with_tag`, in an order that cannot deadlock at any size.
///
/// For each side: `halo.send[side as usize]` goes to `nb.of(side)` tagged `side.tag()`;
/// `halo.recv[side as usize]` receives from `nb.of(side)` the message it sent towards
/// me, tagged `side.opposite().tag()`. A side with no neighbour (`None`) is skipped. A
/// blocking send waits for its receive beyond about 4 KiB: if every rank sends first,
/// nobody receives. Along each axis, let even process coordinates send first and odd
/// ones receive first. When the neighbour is this rank itself, copy.
pub fn exchange_blocking(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    // TODO(ex 4.3): four shifts, each ordered by the parity of the process coordinate
    todo!("ex 4.3: exchange the four edges with blocking sends and receives")
}
// ANCHOR_END: blocking

// ANCHOR: sendrecv
/// The same exchange as [`exchange_blocking`], each shift one combined
/// `mpi::point_to_point::send_receive_into_with_tags` call: MPI orders the send and the
/// receive for you, so no parity is needed. At a fixed edge one of the two partners is
/// missing: then send only, or receive only.
pub fn exchange_sendrecv(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    // TODO(ex 4.4): four send_receive_into_with_tags, one per shift
    todo!("ex 4.4: exchange the four edges with send_receive_into_with_tags")
}
// ANCHOR_END: sendrecv
