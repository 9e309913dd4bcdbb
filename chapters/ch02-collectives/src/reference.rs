//! Given code: MPI's own collectives, with the same signatures as the exercises.
//!
//! The tests compare every exercise with the function of the same name here, and the lab
//! times both. Each is a thin wrapper over one rsmpi call; read them as a phrase book
//! from "what the collective computes" to "how rsmpi spells it". A reduction hands rsmpi
//! `op.to_mpi::<T>()`: MPI's predefined operation for sum, product, max and min, and a
//! user-defined one (commutative or not) for `Op::AbsMax` and `Op::First`.

use crate::displacements;
use crate::ops::{Elem, Op};
use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

fn counts_i32(counts: &[usize]) -> Vec<Count> {
    counts.iter().map(|&c| c as Count).collect()
}

/// MPI_Bcast: `buf` of `root` is copied into `buf` of every rank.
pub fn broadcast<T: Equivalence>(world: &SimpleCommunicator, root: i32, buf: &mut [T]) {
    world.process_at_rank(root).broadcast_into(buf);
}

/// MPI_Reduce: `root` gets `x_0 ∘ x_1 ∘ ... ∘ x_{p-1}` element-wise; the others `None`.
pub fn reduce<T: Elem>(world: &SimpleCommunicator, root: i32, xs: &[T], op: Op) -> Option<Vec<T>> {
    let proc = world.process_at_rank(root);
    if world.rank() == root {
        let mut out = vec![T::default(); xs.len()];
        proc.reduce_into_root(xs, &mut out[..], op.to_mpi::<T>());
        Some(out)
    } else {
        proc.reduce_into(xs, op.to_mpi::<T>());
        None
    }
}

/// MPI_Allreduce: every rank gets `x_0 ∘ x_1 ∘ ... ∘ x_{p-1}` element-wise.
pub fn allreduce<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let mut out = vec![T::default(); xs.len()];
    world.all_reduce_into(xs, &mut out[..], op.to_mpi::<T>());
    out
}

/// MPI_Scan: rank r gets `x_0 ∘ x_1 ∘ ... ∘ x_r` element-wise.
pub fn scan<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let mut out = vec![T::default(); xs.len()];
    world.scan_into(xs, &mut out[..], op.to_mpi::<T>());
    out
}

/// MPI_Scatter (equal counts) or MPI_Scatterv: rank r gets `counts[r]` items of `all`
/// (given on `root` only), blocks in rank order.
pub fn scatterv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    all: Option<&[T]>,
    counts: &[usize],
) -> Vec<T> {
    let proc = world.process_at_rank(root);
    let mut mine = vec![T::default(); counts[world.rank() as usize]];
    let equal = counts.iter().all(|&c| c == counts[0]);
    match (world.rank() == root, equal) {
        (true, true) => {
            proc.scatter_into_root(all.expect("root must pass the data"), &mut mine[..])
        }
        (true, false) => {
            let all = all.expect("root must pass the data");
            let (c, d) = (counts_i32(counts), counts_i32(&displacements(counts)));
            proc.scatter_varcount_into_root(&Partition::new(all, c, d), &mut mine[..]);
        }
        (false, true) => proc.scatter_into(&mut mine[..]),
        (false, false) => proc.scatter_varcount_into(&mut mine[..]),
    }
    mine
}

/// MPI_Gather (equal counts) or MPI_Gatherv: `root` gets every rank's `mine` (rank r
/// passes `counts[r]` items) in rank order; the others `None`.
pub fn gatherv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    mine: &[T],
    counts: &[usize],
) -> Option<Vec<T>> {
    let proc = world.process_at_rank(root);
    let equal = counts.iter().all(|&c| c == counts[0]);
    if world.rank() != root {
        match equal {
            true => proc.gather_into(mine),
            false => proc.gather_varcount_into(mine),
        }
        return None;
    }
    let mut all = vec![T::default(); counts.iter().sum()];
    if equal {
        proc.gather_into_root(mine, &mut all[..]);
    } else {
        let (c, d) = (counts_i32(counts), counts_i32(&displacements(counts)));
        proc.gather_varcount_into_root(mine, &mut PartitionMut::new(&mut all[..], c, d));
    }
    Some(all)
}

/// MPI_Allgather: every rank gets every rank's `mine` (all of one length) in rank order.
pub fn allgather<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    mine: &[T],
) -> Vec<T> {
    let mut all = vec![T::default(); mine.len() * world.size() as usize];
    world.all_gather_into(mine, &mut all[..]);
    all
}

/// MPI_Alltoall: `send` holds one block per rank; block j goes to rank j, and the result
/// holds, as block i, what rank i sent to this rank.
pub fn alltoall<T: Equivalence + Copy + Default>(world: &SimpleCommunicator, send: &[T]) -> Vec<T> {
    let mut recv = vec![T::default(); send.len()];
    world.all_to_all_into(send, &mut recv[..]);
    recv
}

/// MPI_Barrier: returns only after every rank has called it.
pub fn barrier(world: &SimpleCommunicator) {
    world.barrier();
}
