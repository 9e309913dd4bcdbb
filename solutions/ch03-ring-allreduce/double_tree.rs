//! Chapter 3 exercise 3.7: solution.

use crate::binary_tree::double_binary_tree;
use crate::chunk_range;
use crate::ops::{Elem, Op};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_double_tree
/// Half `t` up tree `t` and back down, segment by segment, the two trees interleaved.
pub fn allreduce_double_tree<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
    segment: usize,
) -> Vec<T> {
    assert!(segment >= 1, "a segment holds at least one element");
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = |r: usize| world.process_at_rank(r as i32);
    let trees = double_binary_tree(p, rank);
    let mut data = xs.to_vec();
    let n = data.len();
    let halves = [chunk_range(n, 2, 0), chunk_range(n, 2, 1)];
    // segment j of half t, empty past its end
    let piece = |t: usize, j: usize| {
        let half = &halves[t];
        let start = (half.start + j * segment).min(half.end);
        start..(start + segment).min(half.end)
    };
    let segments = halves[0].len().div_ceil(segment);
    let mut inbox = vec![T::default(); segment.min(n)];
    for j in 0..segments {
        for (t, node) in trees.iter().enumerate() {
            let seg = piece(t, j);
            if seg.is_empty() {
                continue;
            }
            let got = &mut inbox[..seg.len()];
            for &child in &node.children {
                at(child).receive_into(&mut *got);
                op.reduce_into(&mut data[seg.clone()], got);
            }
            if let Some(parent) = node.parent {
                at(parent).send(&data[seg]);
            }
        }
    }
    for j in 0..segments {
        for (t, node) in trees.iter().enumerate() {
            let seg = piece(t, j);
            if seg.is_empty() {
                continue;
            }
            if let Some(parent) = node.parent {
                at(parent).receive_into(&mut data[seg.clone()]);
            }
            for &child in &node.children {
                at(child).send(&data[seg.clone()]);
            }
        }
    }
    data
}
// ANCHOR_END: allreduce_double_tree
