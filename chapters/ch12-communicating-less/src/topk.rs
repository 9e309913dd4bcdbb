//! Chapter 12 exercise 12.3: top-k sparsification with error feedback. Each rank adds
//! its residual to its gradient, keeps the `k` largest magnitudes, exchanges (index,
//! value) pieces with an allgather of variable size, sums them into a dense vector, and
//! keeps what it did not send as its next residual. Check with `make check CH=12`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::feedback::Feedback;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: top_k
/// The indices of the `k` elements of `xs` with the largest `|x|`, in ascending order;
/// between equal magnitudes the lower index wins.
pub fn top_k(xs: &[f32], k: usize) -> Vec<u32> {
    // TODO(ex 12.3): sort the indices by (|x| descending, index ascending), take k, sort them
    todo!("ex 12.3: the indices of the k largest magnitudes, ties to the lower index")
}
// ANCHOR_END: top_k

// ANCHOR: sparse_sum
/// The dense sum over every rank of its pieces (`indices[j]`, `values[j]`), as a vector
/// of `len` elements on every rank, added in rank order. The ranks' counts may differ:
/// exchange the counts first (`all_gather_into`), then the indices and the values
/// (`all_gather_varcount_into` with a `PartitionMut`). Contributes
/// 4 + 8·`indices.len()` bytes.
pub fn sparse_sum(
    world: &SimpleCommunicator,
    indices: &[u32],
    values: &[f32],
    len: usize,
) -> Vec<f32> {
    // TODO(ex 12.3): counts by all_gather_into, displacements, all_gather_varcount_into twice, scatter-add
    todo!("ex 12.3: gather the counts, then every rank's indices and values, and add them up")
}
// ANCHOR_END: sparse_sum

// ANCHOR: step
/// One compressed step: `acc = grad + fb.residual`, send the `fb.keep` largest of `acc`
/// through [`sparse_sum`], set `fb.residual` to `acc` with the sent elements zeroed, add
/// the bytes sent to `fb.bytes_sent`, and return the sum over the ranks (not the mean).
pub fn step(world: &SimpleCommunicator, fb: &mut Feedback, grad: &[f32]) -> Vec<f32> {
    // TODO(ex 12.3): accumulate, top_k, sparse_sum, zero the sent elements of the residual, count bytes
    todo!("ex 12.3: add the residual, send the top k, keep the rest as the next residual")
}
// ANCHOR_END: step
