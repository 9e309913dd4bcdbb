//! Chapter 3: the ring allreduce by hand, recursive doubling, a cost model to choose
//! between them, and a benchmark against MPI_Allreduce.
//!
//! Run the lab with `make run CH=03`, your exercises with `make check CH=03`, the
//! benchmark with `make bench CH=03`.
//!
//! Given code (read it, use it):
//! - [`ops`]: element types and the commutative operations (sum, max, min, AbsMax);
//! - [`reference`]: MPI_Allreduce (the truth) and a naive reduce + broadcast;
//! - [`binary_tree`]: the two binary trees of the double binary tree (ex 3.7);
//! - [`rules`]: a decision table in Open MPI's rules-file format (the `tune` benchmark);
//!   [`mpich_rules`]: the same table as MPICH's selection file (JSON);
//! - [`cost`]: the alpha-beta-gamma cost model of each algorithm, its regimes (one model
//!   per vector size: caches, then DRAM), and its calibration;
//! - this file: how a vector is cut into chunks ([`chunk_range`]), and the algorithms put
//!   together ([`allreduce_ring`], [`allreduce_auto`]).
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`ring`] (ex 3.1, 3.2), [`segmented`] (ex 3.3), [`doubling`] (ex 3.4), [`choose`]
//! (ex 3.5), [`rabenseifner`] (ex 3.6), [`double_tree`] (ex 3.7).

pub mod binary_tree;
pub mod cost;
pub mod machine;
pub mod mpich_rules;
pub mod ops;
pub mod reference;
pub mod rules;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/ring.rs"
)]
pub mod ring;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/segmented.rs"
)]
pub mod segmented;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/doubling.rs"
)]
pub mod doubling;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/choose.rs"
)]
pub mod choose;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/rabenseifner.rs"
)]
pub mod rabenseifner;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch03-ring-allreduce/double_tree.rs"
)]
pub mod double_tree;

use cost::{Algorithm, Machine};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use ops::{Elem, Op};
use std::ops::Range;

/// The elements of chunk `i` when `len` elements are cut into `p` chunks: the toolkit's
/// `block_range` (exercise 0.1), under the name this chapter gives it.
pub use toolkit::split::block_range as chunk_range;

// ANCHOR: owned_chunk
/// The chunk rank `rank` holds fully reduced after the ring reduce-scatter (ex 3.1), and
/// starts the ring allgather (ex 3.2) from: `(rank + 1) % p`. Why not `rank`? In step s
/// rank r sends chunk `(r - s) mod p`; after p - 1 steps the chunk that arrived last,
/// with every rank's contribution, is `(r - (p - 1) - 1) mod p = (r + 1) mod p`.
pub fn owned_chunk(rank: usize, p: usize) -> usize {
    (rank + 1) % p
}
// ANCHOR_END: owned_chunk

// ANCHOR: split_chunks
/// Two disjoint parts of `data` at once: `send` to read (hand to a send) and `recv` to
/// write (receive or reduce into), which a single `&mut data` cannot lend together.
/// Panics if the ranges overlap.
pub fn split_chunks<T>(data: &mut [T], send: Range<usize>, recv: Range<usize>) -> (&[T], &mut [T]) {
    if send.is_empty() {
        return (&[], &mut data[recv]);
    }
    if recv.is_empty() {
        return (&data[send], &mut []);
    }
    assert!(
        send.end <= recv.start || recv.end <= send.start,
        "chunks overlap"
    );
    if send.start < recv.start {
        let (a, b) = data.split_at_mut(recv.start);
        (&a[send], &mut b[..recv.len()])
    } else {
        let (a, b) = data.split_at_mut(send.start);
        (&b[..send.len()], &mut a[recv])
    }
}
// ANCHOR_END: split_chunks

// ANCHOR: allreduce_ring
/// The ring allreduce: reduce-scatter (ex 3.1), then allgather (ex 3.2), in place on a
/// copy of `xs`. Every rank returns `x_0 ∘ x_1 ∘ ... ∘ x_{p-1}`, element-wise.
pub fn allreduce_ring<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let mut data = xs.to_vec();
    ring::reduce_scatter_ring(world, &mut data, op);
    ring::allgather_ring(world, &mut data);
    data
}
// ANCHOR_END: allreduce_ring

/// Segment length (in elements) of the segmented ring for elements of `T`:
/// [`cost::SEGMENT_BYTES`] bytes.
pub fn segment_len<T>() -> usize {
    (cost::SEGMENT_BYTES / std::mem::size_of::<T>()).max(1)
}

// ANCHOR: allreduce_binomial_tree
/// The binomial-tree allreduce: chapter 2's tree reduce to rank 0 (ex 2.3), then its
/// binomial broadcast from rank 0 (ex 2.2). `2·ceil(log2 p)` rounds, the whole vector in
/// each: the latency algorithm the benchmark puts next to the ring (`--with tree`).
pub fn allreduce_binomial_tree<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let reduced = ch02::reduce::reduce_binomial(world, 0, xs, op);
    let mut all = reduced.unwrap_or_else(|| vec![T::default(); xs.len()]);
    ch02::broadcast::broadcast_binomial(world, 0, &mut all);
    all
}
// ANCHOR_END: allreduce_binomial_tree

// ANCHOR: allreduce_auto
/// The allreduce a library would call: `choose::choose_algorithm` (ex 3.5) picks
/// recursive doubling or the segmented ring from the times the machine's cost model
/// predicts (each message, reduction and buffer in the regime of its size), then runs it.
pub fn allreduce_auto<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
    machine: &Machine,
) -> Vec<T> {
    let bytes = std::mem::size_of_val(xs);
    match choose::choose_algorithm(machine, world.size() as usize, bytes) {
        Algorithm::RecursiveDoubling => doubling::allreduce_recursive_doubling(world, xs, op),
        _ => segmented::allreduce_ring_segmented(world, xs, op, segment_len::<T>()),
    }
}
// ANCHOR_END: allreduce_auto

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_chunks_lends_both_parts() {
        let mut v = [0, 1, 2, 3, 4, 5];
        let (s, r) = split_chunks(&mut v, 4..6, 0..2);
        r.copy_from_slice(s);
        assert_eq!(v, [4, 5, 2, 3, 4, 5]);
        let (s, r) = split_chunks(&mut v, 6..6, 2..4);
        assert!(s.is_empty() && r == [2, 3]);
    }
}
