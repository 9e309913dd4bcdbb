//! Given: communication inside a model, by cutting LibTorch's graph.
//!
//! LibTorch (from Rust) has no custom autograd function, so a collective cannot sit inside
//! the graph. Instead the graph is cut where one is needed: the cut's forward runs outside
//! autograd and its result becomes a new leaf that requires grad; the layers after it
//! build their own graph from that leaf. [`Tape::backward`] then runs the graph after the
//! last cut backward (which stops at the leaves), and walks the cuts in reverse: each
//! takes its leaf's gradient, applies its own backward (an allreduce for f, the identity
//! for g) and continues upstream from `input` with that gradient ([`backward_from`]: tch
//! has no `backward` with a given gradient, so it runs `(input * grad).sum()`'s, whose
//! gradient at `input` is exactly `grad`). Chapter 7's executor cuts the graph the same
//! way between pipeline stages.
//!
//! The cuts are made in forward order, so walking them in reverse visits every leaf after
//! all the graphs that use it: a leaf read twice (a residual) holds the sum of both
//! gradients by the time its cut continues upstream.

use crate::mappings;
use crate::tp::Tp;
use tch::Tensor;

/// The backward of one cut: the leaf's gradient in, the input's gradient out.
type CutBackward<'a> = Box<dyn Fn(&Tensor) -> Tensor + 'a>;

struct Cut<'a> {
    input: Tensor,
    leaf: Tensor,
    backward: CutBackward<'a>,
}

/// The cuts of one forward pass, in order; consumed by its [`Tape::backward`].
#[derive(Default)]
pub struct Tape<'a> {
    cuts: Vec<Cut<'a>>,
}

impl<'a> Tape<'a> {
    /// A tape with no cuts.
    pub fn new() -> Self {
        Tape { cuts: vec![] }
    }

    /// Cuts the graph at `input`: returns `forward(input)`, computed outside autograd, as
    /// a new leaf that requires grad; `backward` turns that leaf's gradient into
    /// `input`'s.
    pub fn cut(
        &mut self,
        input: &Tensor,
        forward: impl FnOnce(&Tensor) -> Tensor,
        backward: impl Fn(&Tensor) -> Tensor + 'a,
    ) -> Tensor {
        let value = tch::no_grad(|| forward(&input.detach()));
        let leaf = value.detach().set_requires_grad(true);
        self.cuts.push(Cut {
            input: input.shallow_clone(),
            leaf: leaf.shallow_clone(),
            backward: Box::new(backward),
        });
        leaf
    }

    /// An identity cut: where a tensor feeds two branches (a residual and a layer), so
    /// that its gradient is summed from both before it goes upstream.
    pub fn mark(&mut self, input: &Tensor) -> Tensor {
        self.cut(input, |x| x.shallow_clone(), |d| d.shallow_clone())
    }

    // ANCHOR: f_and_g
    /// Megatron's f before a column-parallel layer: the identity forward, an allreduce of
    /// the gradient backward (ex 9.2's `f_forward` and `f_backward`).
    pub fn f(&mut self, tp: &'a Tp, x: &Tensor) -> Tensor {
        self.cut(x, mappings::f_forward, move |d| mappings::f_backward(tp, d))
    }

    /// Megatron's g after a row-parallel layer: an allreduce forward, the identity
    /// backward (ex 9.2's `g_forward` and `g_backward`).
    pub fn g(&mut self, tp: &'a Tp, partial: &Tensor) -> Tensor {
        self.cut(
            partial,
            |p| mappings::g_forward(tp, p),
            mappings::g_backward,
        )
    }
    // ANCHOR_END: f_and_g

    /// Causal self-attention of the heads in `q`, `k`, `v` ([`crate::ops::attend`]); where
    /// the sequence is split over a context-parallel group ([`crate::tp::Tp::with_context`],
    /// chapter 13), over every rank's keys and values, with its own cut.
    pub fn attend(
        &mut self,
        tp: &'a Tp,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        head_dim: usize,
    ) -> Tensor {
        match tp.context() {
            Some(context) => context.attend(self, q, k, v, head_dim),
            None => crate::ops::attend(q, k, v, head_dim),
        }
    }

    /// How many cuts this forward made.
    pub fn len(&self) -> usize {
        self.cuts.len()
    }

    /// Whether this forward made no cut.
    pub fn is_empty(&self) -> bool {
        self.cuts.is_empty()
    }

    // ANCHOR: backward
    /// The backward of the whole pass: `out`'s gradient is `dout`; returns the gradient
    /// of the first cut's input (the block's input, when the forward began with
    /// [`Tape::mark`]), or `dout` itself when there were no cuts. Parameters' gradients
    /// accumulate in their `.grad()` as usual.
    pub fn backward(self, out: &Tensor, dout: &Tensor) -> Tensor {
        backward_from(out, dout);
        let mut upstream = dout.shallow_clone();
        for cut in self.cuts.into_iter().rev() {
            let grad = cut.leaf.grad();
            let grad = match grad.defined() {
                true => grad,
                false => cut.leaf.zeros_like(), // a leaf nothing after the cut used
            };
            upstream = (cut.backward)(&grad);
            if cut.input.requires_grad() {
                backward_from(&cut.input, &upstream);
            }
        }
        upstream
    }
    // ANCHOR_END: backward
}

/// Runs the backward of the graph that made `t`, with `grad` as `t`'s gradient: the
/// backward of `(t * grad).sum()` (`grad` outside any graph).
pub fn backward_from(t: &Tensor, grad: &Tensor) {
    (t * grad.detach()).sum(t.kind()).backward();
}
