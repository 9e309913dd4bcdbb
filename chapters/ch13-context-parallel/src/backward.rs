//! Chapter 13 exercise 13.5: ring attention, backward. No autograd crosses the ranks: as
//! chapters 7 and 9 cut the graph at a rank's edge, each rank computes its block pairs'
//! gradients itself (`grads::block_grads`, from the forward's lse). dQ stays where the
//! queries are; dK and dV gather a part from every rank's queries, so each key/value block
//! travels the ring again, this time with its two gradient accumulators, and the
//! accumulators go home at the end. Check with `make check CH=13` (tests/backward.rs: 1 to
//! 8 ranks against LibTorch's autograd on one process).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::blocks::{pack, unpack};
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
