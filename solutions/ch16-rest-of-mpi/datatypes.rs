//! Exercise 16.1: solution. Compiled instead of the stub by `--features solution`.

use crate::cells::{sendrecv_cells, Cells, Shift};
use ch04::field::Field;
use ch04::halo::Side;
use ch04::topology::Neighbours;
use mpi::datatype::UserDatatype;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: column_type
/// The MPI datatype of one owned column of `f`.
pub fn column_type(f: &Field) -> UserDatatype {
    let (rows, stride) = (f.rows as i32, f.stride() as i32);
    UserDatatype::vector(rows, 1, stride, &f64::equivalent_datatype())
}
// ANCHOR_END: column_type

// ANCHOR: exchange
/// Fills the ghost layer of `f` from the neighbours, four shifts in place.
pub fn exchange_datatypes(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    f: &mut Field,
    column: &UserDatatype,
) {
    let (rows, cols) = (f.rows, f.cols);
    // (side sent towards, my owned edge on that side, my ghost layer on the other side)
    let shifts = [
        (Side::South, Cells::Row(rows), Cells::Row(0)),
        (Side::North, Cells::Row(1), Cells::Row(rows + 1)),
        (
            Side::East,
            Cells::Column(cols, column),
            Cells::Column(0, column),
        ),
        (
            Side::West,
            Cells::Column(1, column),
            Cells::Column(cols + 1, column),
        ),
    ];
    for (side, send, recv) in shifts {
        let (to, from) = (nb.of(side), nb.of(side.opposite()));
        let tag = side.tag();
        sendrecv_cells(
            cart,
            f,
            Shift {
                send,
                to,
                recv,
                from,
                tag,
            },
        );
    }
}
// ANCHOR_END: exchange
