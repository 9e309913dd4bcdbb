//! Chapter 6 exercises 6.4 and 6.5: gradient synchronisation, naive then bucketed.
//!
//! After `backward()` each rank holds the gradients of ITS batch. Averaging them over the
//! ranks gives the gradient of the whole global batch, so every rank then takes the same
//! optimizer step. Check with `make check CH=06` (tests/grad_sync.rs trains p ranks with
//! batch B/p against one process with batch B).
#![allow(unused_variables, clippy::ptr_arg)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::flat;
use crate::reducer::Allreduce;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: allreduce_per_tensor
/// Replaces every gradient in `grads` (f32) by its mean over the ranks: one allreduce per
/// tensor (`reducer.sum_in_place`), then divide by `reducer.ranks()`.
pub fn allreduce_per_tensor(reducer: &dyn Allreduce, grads: &mut [Tensor]) {
    // TODO(ex 6.4): per tensor: copy out (flat::pack), sum over ranks, divide, copy back
    todo!("ex 6.4: average each gradient over the ranks, one allreduce per tensor")
}
// ANCHOR_END: allreduce_per_tensor

// ANCHOR: plan_buckets
/// Groups consecutive tensors of `lens` elements (f32) into buckets of at most
/// `cap_bytes` bytes: a new bucket starts when the next tensor would not fit. A tensor
/// larger than the cap gets a bucket of its own. Returns index ranges into `lens` that
/// cover it in order; empty `lens` gives no buckets.
pub fn plan_buckets(lens: &[usize], cap_bytes: usize) -> Vec<Range<usize>> {
    // TODO(ex 6.5): greedy grouping of consecutive tensors
    todo!("ex 6.5: plan buckets, then average the gradients one bucket at a time")
}
// ANCHOR_END: plan_buckets

// ANCHOR: allreduce_bucketed
/// Like [`allreduce_per_tensor`], but one allreduce per bucket of `buckets` (from
/// [`plan_buckets`]): pack the bucket's gradients into `buf` (resized as needed, reused
/// between calls), sum it, divide, unpack.
pub fn allreduce_bucketed(
    reducer: &dyn Allreduce,
    grads: &mut [Tensor],
    buckets: &[Range<usize>],
    buf: &mut Vec<f32>,
) {
    // TODO(ex 6.5): per bucket: pack, sum_in_place, divide by the ranks, unpack
    todo!("ex 6.5: plan buckets, then average the gradients one bucket at a time")
}
// ANCHOR_END: allreduce_bucketed
