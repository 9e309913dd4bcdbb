//! Exercise 16.3: the halo exchange as one neighbourhood collective on the Cartesian
//! communicator: no ranks named, no tags, no ordering; MPI knows the neighbours.
//!
//! Check: `make check CH=16` (test `ex16_3_*`: the solver with your exchange against the
//! serial solver, bit for bit, at 1 to 8 ranks, periodic axes of one and two ranks
//! included).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::neighbourhood::{alltoallv, Blocks};
use ch04::halo::{Halo, SIDES};
use mpi::topology::CartesianCommunicator;

// ANCHOR: exchange
/// Fills `halo.recv` from the neighbours' `halo.send` with one [`alltoallv`] on `cart`.
/// The communicator's neighbours come in the order of [`SIDES`] (north, south, west,
/// east): block `k` sent goes to the neighbour on side `k`, block `k` received is that
/// neighbour's edge for my ghost layer on side `k`. Lay the four send buffers end to end
/// in one buffer, each block's count its length and its displacement where it starts;
/// the receive side likewise; then copy the received blocks into `halo.recv`.
pub fn exchange_neighbourhood(cart: &CartesianCommunicator, halo: &mut Halo) {
    // TODO(ex 16.3): counts and displacements from the buffers' lengths, one alltoallv
    todo!("ex 16.3: exchange the four edges with one neighbourhood collective")
}
// ANCHOR_END: exchange
