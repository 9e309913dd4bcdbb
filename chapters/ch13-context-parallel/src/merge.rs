//! Chapter 13 exercise 13.1: two partial attentions merged into one, exactly. The
//! attention of a query over all keys is a softmax over all scores; computed over two
//! parts of the keys it gives two [`Partial`]s, each normalised over its own part. Their
//! log-sum-exps say how much of the total each part holds: `lse = ln(e^lse_a + e^lse_b)`,
//! and the merged output weighs each part's by `e^(lse_part − lse)`. Computed as written,
//! `e^lse` overflows for scores past about 709 (f64) or 88 (f32): shift by the larger of
//! the two first. Check with `make check CH=13`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::partial::Partial;
use tch::Tensor;

// ANCHOR: merge
/// The attention over the keys of `a` and of `b` together, from the two parts' results
/// (the same query rows; the key parts disjoint). Row by row, with `m = max(lse_a,
/// lse_b)`: `lse = m + ln(e^(lse_a − m) + e^(lse_b − m))`, and
/// `out = out_a · e^(lse_a − lse) + out_b · e^(lse_b − lse)` (each weight broadcast over
/// `head_dim` with `unsqueeze(-1)`). A row with `lse_a = −∞` (it saw no key of `a`) takes
/// `b`'s as they are, and the other way round.
pub fn merge(a: &Partial, b: &Partial) -> Partial {
    // TODO(ex 13.1): the larger lse per row, the shifted sum, the weights, the weighted outputs
    todo!("ex 13.1: merge two partial attentions by their log-sum-exp")
}
// ANCHOR_END: merge
