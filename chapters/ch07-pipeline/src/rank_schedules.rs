//! Exercises 7.7 and 7.8: the schedules the field uses after 1F1B, as plans by rank
//! ([`crate::plan::RankPlan`]): interleaved 1F1B (several model chunks per rank) and
//! zero-bubble ZB-H1 (each backward split in two).
//!
//! Check: `make check CH=07` (tests `ex7_7_*` and `ex7_8_*`: every p in 1..=8 and m in
//! 1..=16, v in 1..=4, run through the given checker [`crate::rank_check`]).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::plan::{Pass, RankPlan, Task};

// ANCHOR: interleaved
/// Interleaved 1F1B over `p` ranks with `v` chunks each (stage `c * p + r` is chunk `c`
/// of rank `r`) and `m` micro-batches. Each rank runs its `v * m` forwards in groups of
/// up to `p` micro-batches: group by group, chunk 0 for the group's micro-batches, then
/// chunk 1, ..., chunk `v - 1`; its backwards in the same groups with the chunks in
/// reverse order (`v - 1` first). Rank `r` warms up with `(p - r - 1) + (v - 1) * p`
/// forwards (at most `v * m`), then alternates one forward and one backward, then runs
/// the remaining backwards.
pub fn interleaved(p: usize, v: usize, m: usize) -> RankPlan {
    // TODO(ex 7.7): the forward order and the backward order, then 1F1B over them
    todo!("ex 7.7: interleaved 1F1B, forwards by group and chunk, backwards chunks reversed")
}
// ANCHOR_END: interleaved

// ANCHOR: zero_bubble_h1
/// ZB-H1 over `p` ranks (one stage each) and `m` micro-batches. Rank `r` warms up with
/// `min(p - r - 1, m)` forwards like 1F1B, then for each remaining forward runs
/// `Forward`, then the next `InputGrad`, then, once `r` input gradients are ahead of the
/// weight gradients, the next `WeightGrad`; then each remaining `InputGrad` followed by a
/// `WeightGrad`; then the remaining `WeightGrad`s. Micro-batches in order 0, 1, ... in
/// every pass.
pub fn zero_bubble_h1(p: usize, m: usize) -> RankPlan {
    // TODO(ex 7.8): 1F1B with the backward split, the weight gradients r behind
    todo!("ex 7.8: ZB-H1, each weight gradient deferred r input gradients on rank r")
}
// ANCHOR_END: zero_bubble_h1
