//! Exercise 4.5: one time step that overlaps the halo exchange with the interior update.
//!
//! Check: `make check CH=04` (test `ex4_5_overlapped_matches_serial`: the solver with your
//! step equals the serial solver bit for bit, at 1 to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::field::Field;
use crate::halo::{Halo, SIDES};
use crate::stencil::{update_boundary, update_interior, update_interior_polling};
use crate::topology::Neighbours;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: overlapped
/// One explicit time step, `src` -> `dst`, with the exchange hidden behind the interior update:
///
/// 1. `halo.pack_from(src)`;
/// 2. inside `mpi::request::scope`: post an immediate receive into `halo.recv[side]`
///    (tag `side.opposite().tag()`) and an immediate send of `halo.send[side]` (tag
///    `side.tag()`) for every side with a neighbour;
/// 3. still inside: update the interior while the edges travel, then wait for every
///    request. `crate::stencil::update_interior(src, dst)` is correct; it is only
///    overlapped if MPI makes progress meanwhile, so call
///    `crate::stencil::update_interior_polling(src, dst, poll)` with a `poll` that tests
///    the requests still pending (`request.test()`: `Ok` when done, `Err(request)`
///    gives it back);
/// 4. after the scope: `halo.unpack_into(src, nb)`, then
///    `crate::stencil::update_boundary(src, dst)`.
pub fn step_overlapped(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    // TODO(ex 4.5): post, update the interior, wait, unpack, update the boundary
    todo!("ex 4.5: overlap the exchange with the interior update")
}
// ANCHOR_END: overlapped
