//! Chapter 2 exercise 2.8: a barrier by dissemination.
//!
//! A barrier returns on a rank only after every rank has entered it. It moves no data:
//! it orders time, not values (see the chapter on why it cannot replace a receive).
//! Check with `make check CH=02`; the test records entry and exit times on every rank.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: barrier_dissemination
/// Barrier by dissemination: for d = 1, 2, 4, ... < p, send a token (an empty message or
/// one byte) to `rank + d` and receive one from `rank - d` (modulo p). After the round
/// with distance d, each rank has heard, directly or not, from the 2d - 1 ranks before
/// it; after ceil(log2 p) rounds, from all of them.
pub fn barrier_dissemination(world: &SimpleCommunicator) {
    // TODO(ex 2.8): ceil(log2 p) rounds of send-receive with rank + d and rank - d
    todo!("ex 2.8: barrier by dissemination in ceil(log2 p) rounds")
}
// ANCHOR_END: barrier_dissemination
