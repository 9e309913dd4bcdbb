//! Chapter 7 exercise 7.2: activations and their gradients between stages.
//!
//! A stage sends its output (rows x width) to the next stage and, in the backward pass,
//! the gradient of its input (the same shape as that input) to the stage before. Both
//! sides know the shape: the sender checks what it sends, the receiver what it gets.
//! Check with `make check CH=07` (tests/transfer.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::wire::{self, SendRequest, WireElem};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};

// ANCHOR: send_tensor
/// Posts a non-blocking send of `t`'s values (as `E`s: f32 or f64, row-major) to rank `to` of `comm` with
/// `tag`, and returns its request (the caller waits for it before the step ends). The
/// values are staged in `buf` (`wire::copy_out`), which MPI reads until then. A tensor
/// whose shape is not `shape` is refused (`Err`, naming both shapes) and nothing is sent.
#[allow(clippy::ptr_arg)] // the signature of `wire::SendFn`: the buffer may grow
pub fn send_tensor<'a, 'b, E: WireElem>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    shape: &[i64],
    buf: &'a mut Vec<E>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b, E>, String> {
    // TODO(ex 7.2): check the shape, copy_out into buf, immediate_send_with_tag
    todo!("ex 7.2: send a tensor of a known shape, non-blocking")
}
// ANCHOR_END: send_tensor

// ANCHOR: recv_tensor
/// Receives a tensor of exactly `shape` (`E`s on the wire) from rank `from` of `comm` with
/// `tag`, as a new tensor of `E`'s kind on `device`. A message of another length is taken but refused: `Err` naming
/// the expected shape, the source, the tag and the number of values that came.
pub fn recv_tensor<E: WireElem>(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    // TODO(ex 7.2): matched probe, compare the count, matched receive, copy_in
    todo!("ex 7.2: receive a tensor of a known shape, refusing another")
}
// ANCHOR_END: recv_tensor
