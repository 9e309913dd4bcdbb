//! Exercise 4.7: gather the distributed field on rank 0, for output.
//!
//! Check: `make check CH=04` (test `ex4_7_gather_field`, uneven blocks, 1 to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::field::Field;
use crate::topology::Decomposition;
use mpi::datatype::PartitionMut;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: gather
/// The whole grid (`rows * cols` values, row-major, no ghosts) on rank 0; `None` on the
/// other ranks.
///
/// Every rank sends `f.owned()`. Blocks differ in size, so rank 0 calls
/// `gather_varcount_into_root` with a count and a displacement per rank (rank r's block
/// is `decomp.rows_of(c[0])` x `decomp.cols_of(c[1])`, `c = cart.rank_to_coordinates(r)`);
/// the others call `gather_varcount_into`. The blocks arrive one after the other: copy
/// each block's rows to their place in the global grid.
pub fn gather_field(
    cart: &CartesianCommunicator,
    decomp: &Decomposition,
    f: &Field,
) -> Option<Vec<f64>> {
    // TODO(ex 4.7): counts and displacements, a varcount gather, then place the blocks
    todo!("ex 4.7: gather every block on rank 0 and assemble the global grid")
}
// ANCHOR_END: gather
