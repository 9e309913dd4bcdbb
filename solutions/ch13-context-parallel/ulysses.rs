//! Chapter 13 exercises 13.4 and 13.6: solution.

use crate::grads::{block_grads, row_dot, Grads};
use crate::partial::{attend_block, full_attention, Mask};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

/// MPI_Alltoall of `x`'s first dimension (one slice per rank), as f64: the slices from
/// every rank, stacked in rank order, in `x`'s shape.
fn all_to_all(world: &SimpleCommunicator, x: &Tensor) -> Tensor {
    let send = Vec::<f64>::try_from(&x.flatten(0, -1)).expect("f64 values");
    let mut got = vec![0f64; send.len()];
    world.all_to_all_into(&send[..], &mut got[..]);
    Tensor::from_slice(&got).view(x.size().as_slice())
}

// ANCHOR: ulysses_forward
/// This rank's tokens of `xs` (each `[b, H, t, d]`) as every token of this rank's heads,
/// `[xs.len(), b, h, p·t, d]`, in one all-to-all.
fn to_heads(world: &SimpleCommunicator, xs: &[&Tensor]) -> Tensor {
    let (p, n) = (i64::from(world.size()), xs.len() as i64);
    let (b, heads, t, d) = xs[0].size4().expect("[batch, heads, tokens, head_dim]");
    let h = heads / p;
    // [b, H, t, d] as [p, b, h, t, d]: slice g holds heads g·h.. for rank g.
    let by_rank: Vec<Tensor> = xs
        .iter()
        .map(|x| x.view([b, p, h, t, d]).transpose(0, 1))
        .collect();
    let out = Tensor::stack(&by_rank, 1).contiguous();
    // Slice src: rank src's tokens for this rank's heads; in rank order, the sequence.
    let got = all_to_all(world, &out); // [p, n, b, h, t, d]
    got.permute([1, 2, 3, 0, 4, 5]).reshape([n, b, h, p * t, d])
}

/// The way back: every token of this rank's heads (each of `xs` `[b, h, p·t, d]`) as this
/// rank's tokens of every head, `[xs.len(), b, H, t, d]`, in one all-to-all.
fn to_tokens(world: &SimpleCommunicator, xs: &[Tensor]) -> Tensor {
    let (p, n) = (i64::from(world.size()), xs.len() as i64);
    let (b, h, seq, d) = xs[0].size4().expect("[batch, heads, tokens, head_dim]");
    let t = seq / p;
    // Slice src of each: its tokens, to rank src.
    let by_rank: Vec<Tensor> = xs.iter().map(|x| x.view([b, h, p, t, d])).collect();
    let back = Tensor::stack(&by_rank, 0)
        .permute([3, 0, 1, 2, 4, 5])
        .contiguous();
    let mine = all_to_all(world, &back); // [p, n, b, h, t, d]: slice g, heads g·h..
    mine.permute([1, 2, 0, 3, 4, 5])
        .reshape([n, b, p * h, t, d])
}

/// Heads to their ranks, tokens from theirs; attention; the same way back.
pub fn ulysses_forward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Tensor {
    let whole = to_heads(world, &[q, k, v]);
    let o = full_attention(&whole.get(0), &whole.get(1), &whole.get(2), causal);
    to_tokens(world, &[o]).get(0)
}
// ANCHOR_END: ulysses_forward

// ANCHOR: ulysses_backward
/// dO goes where O was made, with q, k and v; attention's backward on the heads; back.
pub fn ulysses_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    let w = to_heads(world, &[q, k, v, dout]);
    let [q, k, v, dout] = [0, 1, 2, 3].map(|i| w.get(i));
    let mask = if causal { Mask::Diagonal } else { Mask::Full };
    let fwd = attend_block(&q, &k, &v, mask);
    let g = block_grads(&q, &k, &v, &dout, &fwd.lse, &row_dot(&dout, &fwd.out), mask);
    let back = to_tokens(world, &[g.dq, g.dk, g.dv]);
    let [dq, dk, dv] = [0, 1, 2].map(|i| back.get(i));
    Grads { dq, dk, dv }
}
// ANCHOR_END: ulysses_backward
