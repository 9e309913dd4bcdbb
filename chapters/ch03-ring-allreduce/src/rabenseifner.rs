//! Chapter 3 exercise 3.6: Rabenseifner's allreduce. Recursive halving: in each round a
//! rank keeps half of the part of the vector it is still reducing, sends the other half to
//! the partner that keeps it, and reduces what comes back; after `log2 q` rounds each rank
//! holds one block fully reduced (a reduce-scatter). Recursive doubling then gathers the
//! blocks back, the halves doubling. The ring's bytes, `2(q-1)/q·n`, in `2·log2 q`
//! messages instead of `2(p-1)`. Check with `make check CH=03`.
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_rabenseifner
/// Rabenseifner's allreduce: every rank returns `x_0 ∘ ... ∘ x_{p-1}`.
///
/// Over `q = 2^floor(log2 p)` ranks, with ex 3.4's fold-in and fold-out of the `p - q`
/// extra ranks and its numbering (new number `me`; a partner's new number maps back to a
/// real rank as in ex 3.4). The vector is cut into `q` blocks (`chunk_range(n, q, b)`);
/// `[lo, hi)` are the blocks a rank is still reducing, first `[0, q)`.
/// 1. Halving, `mask = q/2, q/4, ..., 1`: with `mid` the middle of `[lo, hi)`, a rank
///    whose `me & mask` is 0 keeps `[lo, mid)` and sends `[mid, hi)`, the other keeps
///    `[mid, hi)` and sends `[lo, mid)`; one `send_receive_into` with partner `me ^ mask`,
///    the received half reduced into the kept one. At the end `[lo, hi) = [me, me + 1)`.
/// 2. Doubling, `mask = 1, 2, ..., q/2`: send the blocks held, receive the partner's (the
///    `mask` blocks next to them, above when `me & mask` is 0, below otherwise) into place
///    (`split_chunks` lends both parts of the vector at once).
pub fn allreduce_rabenseifner<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    // TODO(ex 3.6): fold in, halve (reduce-scatter), double (allgather), fold out
    todo!("ex 3.6: Rabenseifner's allreduce: recursive halving, then recursive doubling")
}
// ANCHOR_END: allreduce_rabenseifner
