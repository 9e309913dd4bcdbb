//! Chapter 9 exercise 9.6: the vocabulary split over the ranks (solution).

use crate::tape::Tape;
use crate::tp::Tp;
use std::ops::Range;
use tch::Tensor;

/// Which of `tokens` this rank owns, and their row numbers in its shard (0 for the
/// others: a valid row, zeroed afterwards).
fn local_rows(tokens: &Tensor, ids: &Range<usize>) -> (Tensor, Tensor) {
    let (start, end) = (ids.start as i64, ids.end as i64);
    let mine = tokens.ge(start).logical_and(&tokens.lt(end));
    let rows = (tokens - start).where_self(&mine, &tokens.zeros_like());
    (mine, rows)
}

// ANCHOR: embedding_forward
/// The embedding: the owned tokens' rows, zeros for the others, summed by g.
pub fn embedding_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    table: &Tensor,
    ids: Range<usize>,
    tokens: &Tensor,
) -> Tensor {
    let (mine, rows) = local_rows(tokens, &ids);
    let looked_up = Tensor::embedding(table, &rows, -1, false, false);
    let partial = looked_up * mine.unsqueeze(-1).to_kind(table.kind());
    tape.g(tp, &partial)
}
// ANCHOR_END: embedding_forward

// ANCHOR: cross_entropy
/// The cross-entropy and its gradient on this rank's columns, three allreduces.
pub fn cross_entropy(
    tp: &Tp,
    logits: &Tensor,
    ids: Range<usize>,
    targets: &Tensor,
) -> (Tensor, Tensor) {
    let logits = logits.detach();
    let (n, kind) = (targets.size()[0], logits.kind());
    let max = tp.max(&logits.amax([-1], true)); // [n, 1]
    let shifted = &logits - &max;
    let exp = shifted.exp();
    let sum_exp = tp.sum(&exp.sum_dim_intlist(&[-1i64][..], true, kind)); // [n, 1]
    let (mine, rows) = local_rows(targets, &ids);
    let mine = mine.unsqueeze(1).to_kind(kind); // [n, 1]
    let own = shifted.gather(1, &rows.unsqueeze(1), false) * &mine;
    let target = tp.sum(&own); // [n, 1]: the target's shifted logit, from its owner
    let loss = (sum_exp.log() - target).mean(kind);
    let one_hot = logits
        .zeros_like()
        .scatter_value(1, &rows.unsqueeze(1), 1.0)
        * &mine;
    let dlogits = (exp / sum_exp - one_hot) / n as f64;
    (loss, dlogits)
}
// ANCHOR_END: cross_entropy
