//! Chapter 13 exercise 13.4: Ulysses attention (DeepSpeed-Ulysses). Instead of passing key
//! and value blocks round a ring, swap what is cut: one all-to-all turns "this rank's
//! tokens, every head" into "every token, this rank's heads", each rank runs ordinary
//! attention over the whole sequence for its `H / p` heads, and a second all-to-all turns
//! the output back. The heads must split evenly over the ranks. Exercise 13.6 (optional):
//! its backward pass, for the GPT of chapter 13's last page. Check with `make check
//! CH=13` (tests/ulysses.rs: 1, 2, 4 and 8 ranks against one process and its autograd).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::grads::{block_grads, row_dot, Grads};
use crate::partial::{attend_block, full_attention, Mask};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: ulysses_forward
/// Attention over a sequence split into one block per rank, by heads. `q`, `k`, `v`: this
/// rank's block of `t` tokens for all `H` heads (`[batch, H, t, head_dim]`, f64; `p`
/// divides `H`, `h = H / p`):
/// 1. one all-to-all of `q`, `k` and `v`: to rank `g` this block's heads `g·h .. (g+1)·h`;
///    from rank `src` its block of tokens (`src·t ..`) for this rank's heads;
/// 2. `full_attention` over the whole sequence (`p·t` tokens, the blocks in rank order)
///    for this rank's `h` heads, causal or not;
/// 3. one all-to-all back: to rank `src` its tokens' rows of this rank's heads; from rank
///    `g` this rank's tokens for heads `g·h ..`.
///
/// Returns this rank's rows of the output for every head, `[batch, H, t, head_dim]`.
pub fn ulysses_forward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Tensor {
    // TODO(ex 13.4): heads to their ranks (all-to-all), attention over the whole sequence, back
    todo!("ex 13.4: Ulysses attention, two all-to-alls")
}
// ANCHOR_END: ulysses_forward

// ANCHOR: ulysses_backward
/// The backward pass of ex 13.4 on this rank. `q`, `k`, `v`: its block of `t` tokens for
/// all `H` heads, as ex 13.4 takes them; `dout`: the loss's gradient with respect to its
/// rows of ex 13.4's output (`[batch, H, t, head_dim]`, f64). An all-to-all only moves
/// slices, so its backward is an all-to-all too: the gradients go back the way the values
/// came.
/// 1. one all-to-all of `q`, `k`, `v` and `dout`, as ex 13.4's first (every token, this
///    rank's heads);
/// 2. on those heads, over the whole sequence (one block): the forward again with
///    `attend_block` (`Mask::Diagonal` when causal, else `Mask::Full`) for its output and
///    lse, then `block_grads` with `row_dot(dout, out)`: dQ, dK, dV of every token;
/// 3. one all-to-all of dQ, dK and dV back, as ex 13.4's second.
///
/// Returns this rank's dQ, dK, dV for every head, each `[batch, H, t, head_dim]`.
pub fn ulysses_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    // TODO(ex 13.6): q, k, v and dout to the heads' ranks, attention's backward there, back
    todo!("ex 13.6: Ulysses attention, backward: the same two all-to-alls")
}
// ANCHOR_END: ulysses_backward
