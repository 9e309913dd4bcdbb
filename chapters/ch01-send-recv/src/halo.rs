//! Exercise 1.3: a non-blocking halo exchange with both neighbours.
//!
//! Every rank runs `halo_exchange` at the same time. Check: `make check CH=01`. The same
//! pattern swaps the ghost cells of a 2-D grid in chapter 4.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::{neighbours, TO_LEFT_TAG, TO_RIGHT_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: halo_exchange
/// Swaps edges with both neighbours on a periodic 1-D domain, without blocking.
///
/// Sends `to_left` to the left neighbour tagged [`crate::TO_LEFT_TAG`] and `to_right` to
/// the right neighbour tagged [`crate::TO_RIGHT_TAG`]. Receives the left neighbour's
/// `to_right` into `from_left` and the right neighbour's `to_left` into `from_right`.
/// All four slices have the same length, on every rank.
///
/// Post the two receives and the two sends as immediate operations inside
/// `mpi::request::scope`, then wait for all four. At 2 ranks the left and the right
/// neighbour are the same rank (the tags tell the two messages apart); at 1 rank both
/// are this rank itself, and that works too.
pub fn halo_exchange<T: Equivalence>(
    world: &SimpleCommunicator,
    to_left: &[T],
    to_right: &[T],
    from_left: &mut [T],
    from_right: &mut [T],
) {
    // TODO(ex 1.3): post two immediate receives and two immediate sends, then wait
    todo!("ex 1.3: exchange halos with both neighbours using immediate sends and receives")
}
// ANCHOR_END: halo_exchange
