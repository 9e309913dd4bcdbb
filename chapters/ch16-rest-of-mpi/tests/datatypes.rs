//! Checks of ex 16.1 (derived datatypes): your column type picks exactly the cells of one
//! column (packed by MPI itself, `MPI_Pack`, and compared cell by cell); then the solver
//! with your exchange equals the serial solver bit for bit at 1 to 8 ranks.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::column::column_property;
use crate::common::{exchange_property, RANKS};
use ch16::exchanges::{Exchange, Parts};
use toolkit::mpi_test;

// ANCHOR: ex16_1
mpi_test! {
    fn ex16_1_the_column_type_is_one_column(world at &[1]) {
        column_property(world, Parts::yours().column_type)
    }
}

mpi_test! {
    fn ex16_1_datatypes_match_serial(world at RANKS) {
        exchange_property(world, Exchange::Datatypes, Parts::yours())
    }
}
// ANCHOR_END: ex16_1
