//! Chapter 6 exercises 6.4 and 6.5: gradient synchronisation (solution).

use crate::flat;
use crate::reducer::Allreduce;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: allreduce_per_tensor
/// Replaces every gradient by its mean over the ranks, one allreduce per tensor.
pub fn allreduce_per_tensor(reducer: &dyn Allreduce, grads: &mut [Tensor]) {
    let ranks = reducer.ranks() as f32;
    for i in 0..grads.len() {
        let one = &mut grads[i..i + 1];
        let mut buf = vec![0f32; one[0].numel()];
        flat::pack(one, &mut buf);
        // communication: the sum of this gradient over all ranks
        reducer.sum_in_place(&mut buf);
        buf.iter_mut().for_each(|x| *x /= ranks);
        flat::unpack(&buf, one);
    }
}
// ANCHOR_END: allreduce_per_tensor

// ANCHOR: plan_buckets
/// Groups consecutive tensors into buckets of at most `cap_bytes` bytes.
pub fn plan_buckets(lens: &[usize], cap_bytes: usize) -> Vec<Range<usize>> {
    let cap = cap_bytes / std::mem::size_of::<f32>();
    let mut buckets = vec![];
    let (mut start, mut filled) = (0, 0);
    for (i, &len) in lens.iter().enumerate() {
        if i > start && filled + len > cap {
            buckets.push(start..i);
            (start, filled) = (i, 0);
        }
        filled += len;
    }
    if start < lens.len() {
        buckets.push(start..lens.len());
    }
    buckets
}
// ANCHOR_END: plan_buckets

// ANCHOR: allreduce_bucketed
/// Averages the gradients over the ranks, one allreduce per bucket.
pub fn allreduce_bucketed(
    reducer: &dyn Allreduce,
    grads: &mut [Tensor],
    buckets: &[Range<usize>],
    buf: &mut Vec<f32>,
) {
    let ranks = reducer.ranks() as f32;
    for bucket in buckets {
        let members = &mut grads[bucket.clone()];
        buf.resize(flat::total_len(members), 0.0);
        flat::pack(members, buf);
        // communication: the sum of the whole bucket over all ranks, one message
        reducer.sum_in_place(buf);
        buf.iter_mut().for_each(|x| *x /= ranks);
        flat::unpack(buf, members);
    }
}
// ANCHOR_END: allreduce_bucketed
