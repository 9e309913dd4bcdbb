//! Chapter 12 exercise 12.3: solution.

use crate::feedback::Feedback;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: top_k
/// Sort the indices by magnitude, the lower index first among equals; keep `k`.
pub fn top_k(xs: &[f32], k: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..xs.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (xs[a as usize].abs(), xs[b as usize].abs());
        y.total_cmp(&x).then(a.cmp(&b))
    });
    order.truncate(k);
    order.sort_unstable();
    order
}
// ANCHOR_END: top_k

// ANCHOR: sparse_sum
/// Counts first, then the indices and the values of every rank, added in rank order.
pub fn sparse_sum(
    world: &SimpleCommunicator,
    indices: &[u32],
    values: &[f32],
    len: usize,
) -> Vec<f32> {
    let mut counts = vec![0i32; world.size() as usize];
    world.all_gather_into(&(indices.len() as i32), &mut counts[..]);
    let displs: Vec<i32> = counts
        .iter()
        .scan(0, |next, &c| {
            let start = *next;
            *next += c;
            Some(start)
        })
        .collect();
    let total = counts.iter().sum::<i32>() as usize;
    let (mut all_i, mut all_v) = (vec![0u32; total], vec![0f32; total]);
    let mut part = PartitionMut::new(&mut all_i[..], &counts[..], &displs[..]);
    world.all_gather_varcount_into(indices, &mut part);
    let mut part = PartitionMut::new(&mut all_v[..], &counts[..], &displs[..]);
    world.all_gather_varcount_into(values, &mut part);
    let mut dense = vec![0f32; len];
    for (&i, &v) in all_i.iter().zip(&all_v) {
        dense[i as usize] += v;
    }
    dense
}
// ANCHOR_END: sparse_sum

// ANCHOR: step
/// Accumulate, send the top k, keep the rest.
pub fn step(world: &SimpleCommunicator, fb: &mut Feedback, grad: &[f32]) -> Vec<f32> {
    let acc: Vec<f32> = grad.iter().zip(&fb.residual).map(|(g, r)| g + r).collect();
    let indices = top_k(&acc, fb.keep);
    let values: Vec<f32> = indices.iter().map(|&i| acc[i as usize]).collect();
    let sum = sparse_sum(world, &indices, &values, grad.len());
    fb.residual = acc;
    for &i in &indices {
        fb.residual[i as usize] = 0.0;
    }
    fb.bytes_sent += 4 + std::mem::size_of_val(&indices[..]) + std::mem::size_of_val(&values[..]);
    sum
}
// ANCHOR_END: step
