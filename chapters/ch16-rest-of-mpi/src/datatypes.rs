//! Exercise 16.1: the halo exchange with a derived datatype: the columns travel where
//! they lie in the field, strided, with no packing loop of ours.
//!
//! Check: `make check CH=16` (tests `ex16_1_*`: the column type against the field's own
//! cells, then the solver with your exchange against the serial solver, bit for bit, at 1
//! to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::cells::{sendrecv_cells, Cells, Shift};
use ch04::field::Field;
use ch04::halo::Side;
use ch04::topology::Neighbours;
use mpi::datatype::UserDatatype;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: column_type
/// The MPI datatype of one owned column of `f`: `f.rows` doubles, each a padded row
/// (`f.stride()` doubles) after the one before (`MPI_Type_vector`; rsmpi:
/// `UserDatatype::vector(count, blocklength, stride, &f64::equivalent_datatype())`).
pub fn column_type(f: &Field) -> UserDatatype {
    // TODO(ex 16.1): a vector of rows blocks of 1 double, stride doubles apart
    todo!("ex 16.1: the datatype of one column of the field")
}
// ANCHOR_END: column_type

// ANCHOR: exchange
/// Fills the ghost layer of `f` from the neighbours: four shifts, each one
/// [`sendrecv_cells`] call. Rows travel as [`Cells::Row`], columns as [`Cells::Column`]
/// with `column` (made by [`column_type`] for this field). A shift towards `side` sends my
/// owned edge on `side` to `nb.of(side)` and receives, from the neighbour on the opposite
/// side, the edge it sent towards `side`, into my ghost layer on that opposite side; both
/// messages carry `side.tag()`.
pub fn exchange_datatypes(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    f: &mut Field,
    column: &UserDatatype,
) {
    // TODO(ex 16.1): four shifts: south, north, east, west
    todo!("ex 16.1: exchange the four edges in place with sendrecv_cells")
}
// ANCHOR_END: exchange
