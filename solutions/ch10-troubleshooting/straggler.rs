//! Chapter 10 exercise 10.4: solution.

pub use crate::skew::RankScore;

/// The median of `row` (the mean of the middle two for an even count).
fn median(row: &[f64]) -> f64 {
    let mut sorted = row.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0
}

// ANCHOR: score_ranks
/// One score per rank: mean lateness over each collective's median, and times last.
pub fn score_ranks(at: &[Vec<f64>]) -> Vec<RankScore> {
    let p = at.first().map_or(0, Vec::len);
    let mut scores: Vec<RankScore> = (0..p)
        .map(|rank| RankScore {
            rank,
            lateness: 0.0,
            last: 0,
        })
        .collect();
    for row in at {
        let (mid, latest) = (median(row), row.iter().copied().fold(f64::MIN, f64::max));
        for (s, &t) in scores.iter_mut().zip(row) {
            s.lateness += (t - mid) / at.len() as f64;
            s.last += usize::from(t == latest);
        }
    }
    scores
}
// ANCHOR_END: score_ranks

// ANCHOR: find_stragglers
/// The ranks later than `threshold` seconds, latest first.
pub fn find_stragglers(scores: &[RankScore], threshold: f64) -> Vec<usize> {
    let mut late: Vec<&RankScore> = scores.iter().filter(|s| s.lateness > threshold).collect();
    late.sort_by(|a, b| b.lateness.total_cmp(&a.lateness));
    late.iter().map(|s| s.rank).collect()
}
// ANCHOR_END: find_stragglers
