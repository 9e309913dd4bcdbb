//! Given: context parallelism inside chapter 9's GPT. [`CpContext`] is chapter 9's
//! [`Context`] seam filled in with this chapter's exercises, one of three ways
//! ([`Attention`]): ring attention in the plain layout (ex 13.2 forward, ex 13.5
//! backward), ring attention in the zig-zag layout (ex 13.3, ex 13.7), or Ulysses in the
//! plain layout (ex 13.4, ex 13.6). The layout says which tokens a rank holds and at which
//! positions; the attention, how its queries see every rank's keys.
//!
//! The communication sits inside the model, so it is cut out of LibTorch's graph as
//! chapter 9 cuts f and g: the cut's input is this rank's q, k and v side by side, its
//! forward is the exercise's forward (outside autograd), its output a new leaf; its
//! backward takes that leaf's gradient, runs the exercise's backward and hands dQ, dK, dV
//! back to the projections that made them. The exercises run in f64 (their messages are
//! f64); an f32 model's q, k and v are widened on the way in and its output narrowed on
//! the way out.

use crate::backward::{ring_backward, zigzag_backward};
use crate::blocks::zigzag_chunks;
use crate::grads::Grads;
use crate::partial::Partial;
use crate::ring::ring_forward;
use crate::ulysses::{ulysses_backward, ulysses_forward};
use crate::zigzag::zigzag_forward;
use ch09::context::Context;
use ch09::tape::Tape;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

/// How the ranks of a CP group share attention over the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Attention {
    /// Ring attention, plain layout: rank r holds block r (ex 13.2, ex 13.5).
    Ring,
    /// Ring attention, zig-zag layout: rank r holds chunks r and 2p-1-r (ex 13.3, ex 13.7).
    Zigzag,
    /// Ulysses, plain layout: heads to ranks by all-to-all (ex 13.4, ex 13.6).
    Ulysses,
}

impl Attention {
    /// The exercises this attention calls, forward and backward.
    pub fn exercises(self) -> [&'static str; 2] {
        match self {
            Attention::Ring => ["13.2", "13.5"],
            Attention::Zigzag => ["13.3", "13.7"],
            Attention::Ulysses => ["13.4", "13.6"],
        }
    }
}

/// A sequence split over the CP group `comm` by `attention`'s layout.
pub struct CpContext<'c> {
    comm: &'c SimpleCommunicator,
    attention: Attention,
}

impl<'c> CpContext<'c> {
    /// `attention` over the ranks of `comm`, in their order.
    pub fn new(comm: &'c SimpleCommunicator, attention: Attention) -> Self {
        CpContext { comm, attention }
    }

    /// The (start, length) of each run of this rank's tokens in a sequence of `seq`:
    /// one block (plain) or two chunks (zig-zag), in the order the rank holds them.
    fn runs(&self, seq: i64) -> Vec<(i64, i64)> {
        let (r, p) = (self.comm.rank() as usize, self.comm.size() as usize);
        match self.attention {
            Attention::Zigzag => {
                let c = seq / (2 * p as i64);
                zigzag_chunks(r, p).map(|j| (j as i64 * c, c)).to_vec()
            }
            _ => {
                let t = seq / p as i64;
                vec![(r as i64 * t, t)]
            }
        }
    }
}

/// `[b, t, heads·d]` as `[b, heads, t, d]` in f64, contiguous (the exercises' layout).
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

impl Context for CpContext<'_> {
    fn local(&self, t: &Tensor) -> Tensor {
        let runs = self.runs(t.size()[1]);
        let parts: Vec<Tensor> = runs.iter().map(|&(at, n)| t.narrow(1, at, n)).collect();
        Tensor::cat(&parts, 1).contiguous()
    }

    fn positions(&self, seq: i64) -> Tensor {
        let cpu = (Kind::Int64, tch::Device::Cpu);
        let runs = self.runs(seq);
        let parts: Vec<Tensor> = runs
            .iter()
            .map(|&(at, n)| Tensor::arange_start(at, at + n, cpu))
            .collect();
        Tensor::cat(&parts, 0)
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
        let (comm, attention) = (self.comm, self.attention);
        // The forward's rows (and lse, for the ring's backward), outside autograd.
        let fwd: Partial = tch::no_grad(|| match attention {
            Attention::Ring => ring_forward(comm, &qh, &kh, &vh, true),
            Attention::Zigzag => zigzag_forward(comm, &qh, &kh, &vh),
            Attention::Ulysses => Partial {
                out: ulysses_forward(comm, &qh, &kh, &vh, true),
                lse: Tensor::new(), // Ulysses' backward makes its own
            },
        });
        let out = by_tokens(&fwd.out, kind);
        tape.cut(
            &qkv,
            move |_| out,
            move |dout| {
                let dout = by_heads(dout, head_dim);
                let g: Grads = match attention {
                    Attention::Ring => ring_backward(comm, &qh, &kh, &vh, &fwd, &dout, true),
                    Attention::Zigzag => zigzag_backward(comm, &qh, &kh, &vh, &fwd, &dout),
                    Attention::Ulysses => ulysses_backward(comm, &qh, &kh, &vh, &dout, true),
                };
                Tensor::cat(&[g.dq, g.dk, g.dv].map(|x| by_tokens(&x, kind)), -1)
            },
        )
    }
    // ANCHOR_END: attend
}
