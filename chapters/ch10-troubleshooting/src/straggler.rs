//! Chapter 10 exercise 10.4: a score per rank from an arrival matrix, and the stragglers.
//!
//! `at[k][r]` is when rank `r` entered the `k`-th collective (seconds). A rank's lateness
//! in one collective is its arrival minus the **median** arrival of that collective; its
//! score is the mean of those over the collectives, and how often it came last. The
//! median, not the mean or the earliest: the straggler pulls the mean towards itself, and
//! one early rank would make every other rank look late. Check with `make check CH=10`.
#![allow(unused_variables)] // the stubs do not use their arguments yet

pub use crate::skew::RankScore;

// ANCHOR: score_ranks
/// One score per rank, in rank order: its mean lateness over the median arrival of each
/// collective (the median of an even count is the mean of the middle two), and in how many
/// collectives it arrived last (every rank at the latest time counts). The rank count is
/// `at[0].len()`; no collectives: no scores.
pub fn score_ranks(at: &[Vec<f64>]) -> Vec<RankScore> {
    // TODO(ex 10.4): per collective its median; per rank the mean of (arrival - median), and the count of rows where it is the latest
    todo!("ex 10.4: score each rank against the median arrival of each collective")
}
// ANCHOR_END: score_ranks

// ANCHOR: find_stragglers
/// The ranks whose lateness is more than `threshold` seconds, latest first.
pub fn find_stragglers(scores: &[RankScore], threshold: f64) -> Vec<usize> {
    // TODO(ex 10.4): keep the scores over the threshold, sort them latest first, their ranks
    todo!("ex 10.4: the ranks later than the threshold, latest first")
}
// ANCHOR_END: find_stragglers
