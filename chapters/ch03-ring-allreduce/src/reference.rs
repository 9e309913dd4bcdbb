//! Given code: MPI's own allreduce, the truth every exercise is compared with, and a
//! naive allreduce (reduce to rank 0, then broadcast) to benchmark against.
//!
//! Nothing to run here; the tests, the lab and the `sweep` benchmark call these.

use crate::ops::{Elem, Op};
use mpi::collective::{SystemOperation, UserOperation};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// MPI's operation for `op`: predefined for sum, max, min; user-defined for AbsMax.
fn system(op: Op) -> Option<SystemOperation> {
    match op {
        Op::Sum => Some(SystemOperation::sum()),
        Op::Max => Some(SystemOperation::max()),
        Op::Min => Some(SystemOperation::min()),
        Op::AbsMax => None,
    }
}

/// A user-defined, commutative MPI operation applying `op` to buffers of `T`. MPI calls
/// it with `(invec, inoutvec)` and wants `inoutvec[i] = invec[i] ∘ inoutvec[i]`.
fn user<T: Elem>(op: Op) -> UserOperation<'static> {
    UserOperation::commutative(move |theirs, mine| {
        let theirs = theirs.downcast::<T>().expect("user op: wrong element type");
        let mine = mine.downcast::<T>().expect("user op: wrong element type");
        op.reduce_into(mine, theirs);
    })
}

// ANCHOR: allreduce
/// MPI_Allreduce into `out` (same length as `xs`): every rank gets `x_0 ∘ ... ∘ x_{p-1}`.
pub fn allreduce_into<T: Elem>(world: &SimpleCommunicator, xs: &[T], out: &mut [T], op: Op) {
    match system(op) {
        Some(o) => world.all_reduce_into(xs, out, o),
        None => world.all_reduce_into(xs, out, &user::<T>(op)),
    }
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
