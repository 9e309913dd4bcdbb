//! Given: the seam where chapter 13 adds a fourth axis to the GPT, context parallelism:
//! the sequence itself split over the ranks of a context-parallel (CP) group.
//!
//! Everything in the GPT but attention works token by token: the embeddings, the layer
//! norms, the MLP, the head and the cross-entropy. A rank that holds some of a
//! sequence's tokens runs all of them on those tokens alone; only attention must see the
//! keys and values of every token before each query. So a [`Context`] says three things:
//! which tokens of a batch this rank holds ([`Context::local`]), at which positions
//! ([`Context::positions`], for the position embedding), and how its queries attend to
//! the whole sequence ([`Context::attend`], with its communication cut out of the graph
//! on the tape, as f and g are). A [`crate::tp::Tp`] made [`crate::tp::Tp::with_context`]
//! carries one; without it (chapter 9) a rank holds every token and attention is
//! [`crate::ops::attend`]. Chapter 13 implements it with ring attention.

use crate::tape::Tape;
use tch::Tensor;

// ANCHOR: context
/// The sequence split over the ranks of a context-parallel group.
pub trait Context {
    /// This rank's tokens of `t` (`[batch, seq, ...]`): a part of dimension 1.
    fn local(&self, t: &Tensor) -> Tensor;

    /// The positions (int64, `[tokens]`) of this rank's tokens when a sequence has `seq`.
    fn positions(&self, seq: i64) -> Tensor;

    /// Causal self-attention of this rank's queries `q` over every rank's keys `k` and
    /// values `v` (each `[batch, tokens, heads * head_dim]`, this rank's tokens), its
    /// communication cut out of the graph on `tape`; the result has `q`'s shape.
    fn attend<'a>(
        &'a self,
        tape: &mut Tape<'a>,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        head_dim: usize,
    ) -> Tensor;
}
// ANCHOR_END: context
