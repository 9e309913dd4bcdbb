//! Exercise 1.2: a neighbour exchange with blocking calls that cannot deadlock.
//!
//! Every rank runs `shift_right` at the same time. Check: `make check CH=01`; the
//! `deadlock` lab (`make run CH=01 BIN=deadlock`) times it next to the other two fixes.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::{neighbours, SHIFT_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: shift_right
/// Every rank sends `mine` to its right neighbour and receives its left neighbour's
/// data into `theirs`, both tagged [`crate::SHIFT_TAG`]. `mine` and `theirs` have the
/// same length on every rank.
///
/// Use blocking calls only (`send_with_tag`, `receive_into_with_tag`): no
/// `send_receive`, no `immediate_*`. It must finish for any length, also far beyond the
/// eager limit, where a send waits until its receive has started, and at any rank count,
/// odd ones and 1 included. Think about who sends first.
pub fn shift_right<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    mine: &[T],
    theirs: &mut [T],
) {
    // TODO(ex 1.2): order the send and the receive so that no cycle of waiting can form
    todo!("ex 1.2: shift the data one rank to the right with blocking calls, deadlock-free")
}
// ANCHOR_END: shift_right
