//! Chapter 3 exercise 3.3: the ring allreduce in one piece, segmented, non-blocking.
//!
//! Same schedule as ex 3.1 + 3.2, but each reduce-scatter step cuts its chunk into
//! segments of `segment` elements, posts every receive and send at once (non-blocking),
//! and reduces each segment as soon as it arrives, while the next ones are in flight and
//! the segment just received is still in the cache. Check with `make check CH=03`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_ring_segmented
/// Ring allreduce of `xs` with segmented reduce-scatter steps of `segment` elements
/// (`segment >= 1`). Every rank returns `x_0 ∘ ... ∘ x_{p-1}` element-wise.
///
/// Write it on its own (do not call ex 3.1 or 3.2). Per reduce-scatter step, inside one
/// `mpi::request::scope`: `immediate_send` each segment of the outgoing chunk, then
/// `immediate_receive_into` each segment of an inbox; wait for the receives in order
/// (`wait_for_data` hands back the segment) and reduce each into place; then wait for
/// the sends. The allgather steps can stay one `send_receive_into` each.
pub fn allreduce_ring_segmented<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
    segment: usize,
) -> Vec<T> {
    // TODO(ex 3.3): the whole ring, with non-blocking segmented reduce-scatter steps
    todo!("ex 3.3: segmented non-blocking ring allreduce")
}
// ANCHOR_END: allreduce_ring_segmented
