//! Chapter 13 exercise 13.5: ring attention, backward. No autograd crosses the ranks: as
//! chapters 7 and 9 cut the graph at a rank's edge, each rank computes its block pairs'
//! gradients itself (`grads::block_grads`, from the forward's lse). dQ stays where the
//! queries are; dK and dV gather a part from every rank's queries, so each key/value block
//! travels the ring again, this time with its two gradient accumulators, and the
//! accumulators go home at the end. Exercise 13.7 (optional): the same in ex 13.3's
//! zig-zag layout, for the GPT of chapter 13's last page. Check with `make check CH=13`
//! (tests/backward.rs: 1 to 8 ranks against LibTorch's autograd on one process).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::blocks::{pack, unpack, zigzag_chunks};
use crate::grads::{block_grads, row_dot, Grads};
use crate::partial::{Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: ring_backward
/// The backward pass of ex 13.2's ring attention on this rank. `q`, `k`, `v`: its blocks;
/// `fwd`: its rows of the forward's result (output and lse); `dout`: the loss's gradient
/// with respect to that output. Per step `s` the block of rank `src = (r - s) mod p`
/// arrives as in the forward pass, with the mask of ex 13.2 (causal: `src > r` skipped):
/// 1. `D = row_dot(dout, &fwd.out)` once;
/// 2. at each step, `block_grads` of this rank's queries against the held block: its `dq`
///    added to this rank's dQ, its `dk`, `dv` to the held block's accumulators;
/// 3. the held block, with its accumulators, to rank `r + 1`, the next from `r - 1`;
///    after the last step the accumulators make one more hop, to their owner.
///
/// Returns dQ of this rank's queries and dK, dV of its own key/value block.
pub fn ring_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    // TODO(ex 13.5): the blocks round the ring with their dK/dV accumulators; dQ stays
    todo!("ex 13.5: ring attention, backward")
}
// ANCHOR_END: ring_backward

// ANCHOR: zigzag_backward
/// The backward pass of ex 13.3's zig-zag ring (causal) on this rank. `q`, `k`, `v`,
/// `dout` and `fwd`: its two chunks (`r`, then `2p - 1 - r`, `c` tokens each), as ex 13.3
/// takes and returns them. Ex 13.5's ring, with ex 13.3's rule per pair of chunks: at step
/// `s` the held part is rank `src = (r - s) mod p`'s, its chunks `zigzag_chunks(src, p)`.
/// For this rank's query chunk `i` (its `a`-th: rows `a·c ..` of `q`, `dout`, `fwd.lse`
/// and D) and each held key chunk `j` (the part's `b`-th: rows `b·c ..`): `j < i`
/// `Mask::Full`, `j == i` `Mask::Diagonal`, `j > i` skipped; `block_grads`' dq added to rows
/// `a·c ..` of dQ, its dk and dv to rows `b·c ..` of the held part's accumulators, which
/// travel with the part and come home at the end, as in ex 13.5.
///
/// Returns dQ of this rank's two query chunks and dK, dV of its own two key chunks.
pub fn zigzag_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
) -> Grads {
    // TODO(ex 13.7): ex 13.5's ring over the two-chunk parts, ex 13.3's rule per pair
    todo!("ex 13.7: ring attention's backward in the zig-zag layout")
}
// ANCHOR_END: zigzag_backward
