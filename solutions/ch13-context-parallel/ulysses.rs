//! Chapter 13 exercise 13.4: solution.

use crate::partial::full_attention;
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
/// Heads to their ranks, tokens from theirs; attention; the same way back.
pub fn ulysses_forward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Tensor {
    let p = i64::from(world.size());
    let (b, heads, t, d) = q.size4().expect("[batch, heads, tokens, head_dim]");
    let h = heads / p;
    // [b, H, t, d] as [p, b, h, t, d]: slice g holds heads g·h.. for rank g.
    let by_rank = |x: &Tensor| x.view([b, p, h, t, d]).transpose(0, 1);
    let out = Tensor::stack(&[by_rank(q), by_rank(k), by_rank(v)], 1).contiguous();
    // Slice src: rank src's tokens for this rank's heads; in rank order, the sequence.
    let got = all_to_all(world, &out); // [p, 3, b, h, t, d]
    let whole = got.permute([1, 2, 3, 0, 4, 5]).reshape([3, b, h, p * t, d]);
    let o = full_attention(&whole.get(0), &whole.get(1), &whole.get(2), causal);
    // Back: slice src of the output, its tokens, to rank src.
    let back = o
        .view([b, h, p, t, d])
        .permute([2, 0, 1, 3, 4])
        .contiguous();
    let mine = all_to_all(world, &back); // [p, b, h, t, d]: slice g, heads g·h..
    mine.transpose(0, 1).reshape([b, heads, t, d])
}
// ANCHOR_END: ulysses_forward
