//! Exercise 5.6: the chunked, double-buffered, staged allreduce of a tensor.
//!
//! Check: `make check CH=05` (test `ex5_6_staged_allreduce`: equal to MPI_Allreduce of
//! the same data, integers exactly and floats within the summation bound, for any length
//! (0 included) and any chunk (1 element, larger than the tensor), at 1 to 4 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::stream::{to_device, Staging, TorchElem};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: staged
/// Sums the 1-D tensor `t` over all ranks of `comm`, in place, through host memory:
/// chunk by chunk, `staging.chunk` elements at a time (the last chunk may be shorter).
///
/// For each chunk k: its copy to the host must have landed (`staging.stream`) before MPI
/// gets the buffer; then start the allreduce of chunk k (`immediate_all_reduce_into`
/// inside `mpi::request::scope`) and, while it runs, start the copy of chunk k+1 into
/// the *other* slot (`stream.start_to_host(t, offset, &mut slot.send, len)`: it runs on
/// the stream's copy thread, or the GPU's copy engine, while this thread goes on); wait;
/// copy the result back with `to_device`.
pub fn staged_allreduce<T: TorchElem, C: Communicator>(
    comm: &C,
    t: &mut Tensor,
    staging: &mut Staging<T>,
) {
    // TODO(ex 5.6): copy chunk 0 in, then per chunk: synchronize, allreduce chunk k while chunk k+1 is copied into the other slot, copy back
    todo!("ex 5.6: stage the tensor through the two host slots, chunk by chunk")
}
// ANCHOR_END: staged
