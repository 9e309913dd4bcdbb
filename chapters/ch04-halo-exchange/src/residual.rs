//! Exercise 4.6: the global residual, for the convergence test.
//!
//! Check: `make check CH=04` (test `ex4_6_global_residual`: equal to the serial residual
//! within the bound for a sum in another order, and the same on every rank).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::field::Field;
use crate::stencil::local_residual;
use mpi::collective::SystemOperation;
use mpi::traits::*;

// ANCHOR: residual
/// The sum over the whole grid of `(new - old)^2`, returned on every rank: each rank's
/// part is `crate::stencil::local_residual(old, new)` over its owned cells; add the
/// parts with an allreduce.
pub fn global_residual<C: Communicator>(comm: &C, old: &Field, new: &Field) -> f64 {
    // TODO(ex 4.6): local sum, then all_reduce_into with SystemOperation::sum()
    todo!("ex 4.6: add every rank's local residual with an allreduce")
}
// ANCHOR_END: residual
