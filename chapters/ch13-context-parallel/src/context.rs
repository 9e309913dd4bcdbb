//! Given: ring attention inside chapter 9's GPT. [`RingContext`] is chapter 9's
//! [`Context`] seam filled in with this chapter's exercises: the sequence cut into one
//! block per rank of a context-parallel (CP) group in order (the plain layout), attention
//! over the whole of it by ex 13.2's ring forward, and its gradients by ex 13.5's ring
//! backward.
//!
//! The communication sits inside the model, so it is cut out of LibTorch's graph as
//! chapter 9 cuts f and g: the cut's input is this rank's q, k and v side by side, its
//! forward is [`ring_forward`] (outside autograd), its output a new leaf; its backward
//! takes that leaf's gradient, runs [`ring_backward`] (the key/value blocks round the ring
//! again, dK and dV home) and hands dQ, dK, dV back to the projections that made them. The
//! ring runs in f64 (its messages are f64, `blocks::pack`); an f32 model's q, k and v are
//! widened on the way in and its output narrowed on the way out.

use crate::backward::ring_backward;
use crate::ring::ring_forward;
use ch09::context::Context;
use ch09::tape::Tape;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

/// A sequence split over the CP group `comm`: rank r of p holds tokens
/// `r·t .. (r+1)·t` of every sequence, `t = seq / p`.
pub struct RingContext<'c> {
    comm: &'c SimpleCommunicator,
}

impl<'c> RingContext<'c> {
    /// The plain layout over the ranks of `comm`, in their order.
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        RingContext { comm }
    }

    /// (this rank, the group's size).
    fn place(&self) -> (i64, i64) {
        (self.comm.rank() as i64, self.comm.size() as i64)
    }
}

/// `[b, t, heads·d]` as `[b, heads, t, d]` in f64, contiguous (the ring's layout).
fn by_heads(x: &Tensor, head_dim: usize) -> Tensor {
    let (b, t, w) = x.size3().expect("[batch, tokens, features]");
    let d = head_dim as i64;
    x.view([b, t, w / d, d])
        .transpose(1, 2)
        .to_kind(Kind::Double)
        .contiguous()
}

/// The inverse of [`by_heads`]: `[b, heads, t, d]` as `[b, t, heads·d]` in `kind`.
fn by_tokens(x: &Tensor, kind: Kind) -> Tensor {
    let (b, heads, t, d) = x.size4().expect("[batch, heads, tokens, head_dim]");
    x.transpose(1, 2)
        .contiguous()
        .view([b, t, heads * d])
        .to_kind(kind)
}

impl Context for RingContext<'_> {
    fn local(&self, t: &Tensor) -> Tensor {
        let (r, p) = self.place();
        let n = t.size()[1] / p;
        t.narrow(1, r * n, n).contiguous()
    }

    fn positions(&self, seq: i64) -> Tensor {
        let (r, p) = self.place();
        let n = seq / p;
        Tensor::arange_start(r * n, (r + 1) * n, (Kind::Int64, tch::Device::Cpu))
    }

    // ANCHOR: attend
    fn attend<'a>(
        &'a self,
        tape: &mut Tape<'a>,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        head_dim: usize,
    ) -> Tensor {
        let kind = q.kind();
        let qkv = Tensor::cat(&[q, k, v], -1);
        let [qh, kh, vh] = [q, k, v].map(|x| by_heads(&x.detach(), head_dim));
        let fwd = tch::no_grad(|| ring_forward(self.comm, &qh, &kh, &vh, true));
        let out = by_tokens(&fwd.out, kind);
        let comm = self.comm;
        tape.cut(
            &qkv,
            move |_| out,
            move |dout| {
                let g = ring_backward(comm, &qh, &kh, &vh, &fwd, &by_heads(dout, head_dim), true);
                Tensor::cat(&[g.dq, g.dk, g.dv].map(|x| by_tokens(&x, kind)), -1)
            },
        )
    }
    // ANCHOR_END: attend
}
