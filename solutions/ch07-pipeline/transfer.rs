//! Chapter 7 exercise 7.2: activations and their gradients between stages (solution).

use crate::wire::{self, SendRequest, WireElem};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};

// ANCHOR: send_tensor
/// Posts a non-blocking send of `t` to rank `to` with `tag`, after checking its shape.
pub fn send_tensor<'a, 'b, E: WireElem>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    shape: &[i64],
    buf: &'a mut Vec<E>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b, E>, String> {
    if t.size() != shape {
        return Err(format!(
            "refusing to send a {} tensor to rank {to} (tag {tag}): rank {to} expects {}",
            wire::shape_text(&t.size()),
            wire::shape_text(shape)
        ));
    }
    wire::copy_out(t, buf); // host staging, row-major, as E (f32 or f64)
    let values: &'a Vec<E> = buf; // shared from here on: MPI reads it until the wait
    let dest = comm.process_at_rank(to as i32);
    Ok(dest.immediate_send_with_tag(scope, &values[..], tag))
}
// ANCHOR_END: send_tensor

// ANCHOR: recv_tensor
/// Receives a tensor of exactly `shape` from rank `from` with `tag`.
pub fn recv_tensor<E: WireElem>(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    // Look at the message before taking it: its length must be the shape's.
    let (msg, status) = comm
        .process_at_rank(from as i32)
        .matched_probe_with_tag(tag);
    let count = status.count(E::equivalent_datatype()) as usize;
    let (values, _) = (msg, status).matched_receive_vec::<E>(); // taken either way
    if count != wire::numel(shape) {
        return Err(format!(
            "expected a {} tensor ({} values) from rank {from} (tag {tag}), the message holds {count} values",
            wire::shape_text(shape),
            wire::numel(shape)
        ));
    }
    Ok(wire::copy_in(&values, shape, device))
}
// ANCHOR_END: recv_tensor
