//! Given code: MPI's own allreduce, the truth every exercise is compared with, and a
//! naive allreduce (reduce to rank 0, then broadcast) to benchmark against.
//!
//! Nothing to run here; the tests, the lab and the `sweep` benchmark call these.

use crate::ops::{Elem, Op};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce
/// MPI_Allreduce into `out` (same length as `xs`): every rank gets `x_0 ∘ ... ∘ x_{p-1}`.
pub fn allreduce_into<T: Elem>(world: &SimpleCommunicator, xs: &[T], out: &mut [T], op: Op) {
    // MPI's predefined operation for sum, max and min; a user-defined one for AbsMax.
    world.all_reduce_into(xs, out, op.to_mpi::<T>());
}
// ANCHOR_END: allreduce

/// MPI_Allreduce, returning a new vector.
pub fn allreduce<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let mut out = vec![T::default(); xs.len()];
    allreduce_into(world, xs, &mut out, op);
    out
}

// ANCHOR: naive
/// The naive allreduce: every rank sends its whole vector to rank 0, which reduces them
/// one after another and sends the result back to each rank. Rank 0's link carries
/// 2(p-1)·n bytes and it does all (p-1)·n reductions alone: the bottleneck the ring
/// removes.
pub fn allreduce_naive<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let (rank, size) = (world.rank(), world.size());
    let mut acc = xs.to_vec();
    if rank == 0 {
        let mut theirs = vec![T::default(); xs.len()];
        for r in 1..size {
            world.process_at_rank(r).receive_into(&mut theirs[..]);
            op.reduce_into(&mut acc, &theirs);
        }
        for r in 1..size {
            world.process_at_rank(r).send(&acc[..]);
        }
    } else {
        world.process_at_rank(0).send(xs);
        world.process_at_rank(0).receive_into(&mut acc[..]);
    }
    acc
}
// ANCHOR_END: naive
