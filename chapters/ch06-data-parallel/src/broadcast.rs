//! Chapter 6 exercise 6.2: an identical start, by broadcasting the parameters.
//!
//! Every rank builds the model, but only rank `root`'s initial values count: after this
//! call every rank holds exactly root's parameters. Check with `make check CH=06`
//! (tests/broadcast.rs compares every value with root's, bit for bit).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::flat;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: broadcast_parameters
/// Overwrites every rank's `params` (f32 tensors, same shapes on all ranks) with rank
/// `root`'s, using ONE broadcast of one flat buffer (`flat::pack` / `flat::unpack`).
pub fn broadcast_parameters(world: &SimpleCommunicator, root: i32, params: &mut [Tensor]) {
    // TODO(ex 6.2): root packs, one broadcast of the flat buffer, everyone unpacks
    todo!("ex 6.2: broadcast the parameters from the root in one flat buffer")
}
// ANCHOR_END: broadcast_parameters
