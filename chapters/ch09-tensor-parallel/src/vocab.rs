//! Chapter 9 exercise 9.6: the vocabulary split over the ranks.
//!
//! Rank r holds the rows `ids` (`shards::vocab_range`) of the embedding table and the
//! same rows of the output layer, so its logits are the columns `ids`. The embedding
//! looks up the ids it owns, zeros the others' rows, and g sums the partial lookups. The
//! cross-entropy never gathers the logits: the maximum (for a stable softmax), the sum
//! of the exponentials and the target's logit are each one allreduce of a number per
//! token. Its backward is local: softmax minus the one-hot of the target, on this rank's
//! columns. Check with `make check CH=09` (tests/vocab.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::tape::Tape;
use crate::tp::Tp;
use std::ops::Range;
use tch::Tensor;

// ANCHOR: embedding_forward
/// The embedding of `tokens` (int64, any shape) from this rank's rows `table` (`[ids.len(),
/// hidden]`, the rows of the ids `ids`): each token's row on the rank that owns it, zeros
/// elsewhere, summed over the group by `tape.g`; `[..., hidden]` on every rank.
pub fn embedding_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    table: &Tensor,
    ids: Range<usize>,
    tokens: &Tensor,
) -> Tensor {
    // TODO(ex 9.6): mask the tokens outside `ids`, look up the rest at `token - ids.start`
    todo!("ex 9.6: the vocabulary-parallel embedding and cross-entropy")
}
// ANCHOR_END: embedding_forward

// ANCHOR: cross_entropy
/// The mean cross-entropy of `targets` (int64, `[n]`) under the logits whose columns
/// `ids` this rank holds (`logits`: `[n, ids.len()]`), and its gradient with respect to
/// those columns (`[n, ids.len()]`, for the mean): `(loss, dlogits)`, the loss the same
/// on every rank. Three allreduces of `n` numbers: the maximum, the sum of the
/// exponentials, the target's logit.
pub fn cross_entropy(
    tp: &Tp,
    logits: &Tensor,
    ids: Range<usize>,
    targets: &Tensor,
) -> (Tensor, Tensor) {
    // TODO(ex 9.6): max, sum of exp and the target's logit over the group; softmax - one-hot
    todo!("ex 9.6: the vocabulary-parallel embedding and cross-entropy")
}
// ANCHOR_END: cross_entropy
