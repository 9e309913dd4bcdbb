//! Chapter 13 exercise 13.2: ring attention, forward. Every rank holds one block of the
//! sequence: its queries, keys and values (`crate::blocks`). The queries stay; the
//! key/value blocks travel round the ring (chapter 3's neighbours), one step at a time, so
//! that after `p − 1` steps every rank has seen every block, and no rank ever holds more
//! than two of them. Each block's attention is a [`Partial`]; ex 13.1 merges them. Check
//! with `make check CH=13`; watch it with `make run CH=13`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::blocks::{pack, unpack};
use crate::merge::merge;
use crate::partial::{attend_block, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: ring_forward
/// The attention of this rank's queries `q` over the whole sequence, from this rank's
/// block of keys `k` and values `v` (`[batch, heads, t, head_dim]` each, f64; rank `r`
/// holds tokens `r·t .. (r+1)·t`). At step `s = 0 .. p−1` this rank holds the key/value
/// block of rank `src = (r − s) mod p`:
/// 1. unless it is the last step, post the block's send to rank `r + 1` and the receive of
///    the next from rank `r − 1` (non-blocking, `mpi::request::scope`: `pack` the block
///    first), so that the messages travel while this rank computes;
/// 2. attend to it: `Mask::Full` (not causal, or `src < r`), `Mask::Diagonal` (causal,
///    `src == r`), or skip it (causal, `src > r`: all of it in the future);
/// 3. merge the result into what the earlier steps gave (ex 13.1; the first result as it
///    is), wait for both messages, and `unpack` the received block for the next step.
///
/// Returns the merged [`Partial`]: `out` is this rank's rows of the attention output.
pub fn ring_forward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Partial {
    // TODO(ex 13.2): p steps: post send/receive, attend (or skip), merge, wait, unpack
    todo!("ex 13.2: ring attention forward: key/value blocks round the ring, merged by ex 13.1")
}
// ANCHOR_END: ring_forward
