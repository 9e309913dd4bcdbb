//! Exercise 4.1: the four neighbours of a rank, from the Cartesian topology.
//!
//! Check: `make check CH=04` (test `ex4_1_neighbours`, at 1 to 8 ranks, fixed and
//! periodic grids).
#![allow(unused_variables)] // the stub does not use its arguments yet

use crate::topology::Neighbours;
use mpi::topology::CartesianCommunicator;

// ANCHOR: neighbours
/// This rank's four neighbours and its place in the process grid.
///
/// Axis 0 runs over process rows (north is row - 1, south is row + 1), axis 1 over
/// process columns (west is column - 1, east is column + 1). Off a non-periodic edge the
/// neighbour is `None`; on a periodic axis with one rank, the neighbour is this rank.
/// `cart.shift(axis, 1)` returns `(rank at coordinate - 1, rank at coordinate + 1)`;
/// `cart.get_layout()` holds `dims` and this rank's `coords`.
pub fn neighbours(cart: &CartesianCommunicator) -> Neighbours {
    // TODO(ex 4.1): two shifts and the layout
    todo!("ex 4.1: find the four neighbours with cart.shift and the coordinates with get_layout")
}
// ANCHOR_END: neighbours
