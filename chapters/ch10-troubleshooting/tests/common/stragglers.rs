//! Shared checks of exercises 10.4 and 10.5 (part 2: stragglers), used by the tests and
//! by the planted mistakes (solutions/ch10-troubleshooting/planted_mistakes.rs). Each
//! returns `Err(message)` naming the case it got wrong. Not a test itself.

use ch10::straggler::RankScore;

/// Arrivals of `p` ranks at `rows` collectives: collective `k` starts at `k` x 10 ms, rank
/// `r` arrives late by its entry in `late` (seconds; 0 when absent) plus a noise in
/// `[0, noise)` seconds, the same for the same `seed`.
pub fn arrivals(
    p: usize,
    rows: usize,
    late: &[(usize, f64)],
    noise: f64,
    seed: u64,
) -> Vec<Vec<f64>> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let delay = |r: usize| late.iter().filter(|l| l.0 == r).map(|l| l.1).sum::<f64>();
    (0..rows)
        .map(|k| {
            (0..p)
                .map(|r| k as f64 * 0.01 + delay(r) + noise * next())
                .collect()
        })
        .collect()
}

/// A scoring function (ex 10.4's `score_ranks`).
pub type Score = fn(&[Vec<f64>]) -> Vec<RankScore>;

/// Checks a scoring function on `at` against each rank's known (lateness, times last).
pub fn check_scores(score: Score, at: &[Vec<f64>], want: &[(f64, usize)]) -> Result<(), String> {
    let got = score(at);
    if got.len() != want.len() {
        return Err(format!(
            "{} ranks: {} scores, one per rank expected",
            want.len(),
            got.len()
        ));
    }
    for (r, (g, w)) in got.iter().zip(want).enumerate() {
        if g.rank != r {
            return Err(format!(
                "score {r} is for rank {}: give them in rank order",
                g.rank
            ));
        }
        if (g.lateness - w.0).abs() > 1e-9 || g.last != w.1 {
            return Err(format!(
                "rank {r} of {}, {} collectives: lateness {:.3} ms, last {} times; expected \
                 {:.3} ms after the median arrival, last {} times",
                want.len(),
                at.len(),
                g.lateness * 1e3,
                g.last,
                w.0 * 1e3,
                w.1
            ));
        }
    }
    Ok(())
}

/// Checks scoring and finding together: the ranks found later than `threshold` seconds.
pub fn check_stragglers(
    score: Score,
    find: fn(&[RankScore], f64) -> Vec<usize>,
    at: &[Vec<f64>],
    threshold: f64,
    want: &[usize],
) -> Result<(), String> {
    let scores = score(at);
    let got = find(&scores, threshold);
    if got == want {
        return Ok(());
    }
    let lateness: Vec<String> = scores
        .iter()
        .map(|s| format!("{:.2}", s.lateness * 1e3))
        .collect();
    let from_mean = scores.len() == lateness_from_mean(at).len()
        && scores
            .iter()
            .zip(lateness_from_mean(at))
            .all(|(s, m)| (s.lateness - m).abs() < 1e-9);
    let why = match from_mean && !at.is_empty() {
        true => ": your score_ranks measures from the mean arrival, not the median: a late rank pulls the mean \
                 towards itself, so it looks less late and everyone else looks early",
        false => "",
    };
    Err(format!(
        "{} ranks, {} collectives, threshold {:.2} ms: found {got:?}, but the stragglers (latest \
         first) are {want:?}; your lateness per rank, ms: [{}]{why}",
        at.first().map_or(0, Vec::len),
        at.len(),
        threshold * 1e3,
        lateness.join(", ")
    ))
}

/// Each rank's mean lateness measured from each collective's mean arrival: what a score
/// against the mean, the classic slip, gives.
fn lateness_from_mean(at: &[Vec<f64>]) -> Vec<f64> {
    let p = at.first().map_or(0, Vec::len);
    let mut late = vec![0.0; p];
    for row in at {
        let mean = row.iter().sum::<f64>() / p as f64;
        for (l, &t) in late.iter_mut().zip(row) {
            *l += (t - mean) / at.len() as f64;
        }
    }
    late
}

/// Checks a waiting-time function (ex 10.5's `time_waited`) on `at` against `want`.
pub fn check_waited(
    waited: fn(&[Vec<f64>]) -> Vec<f64>,
    at: &[Vec<f64>],
    want: &[f64],
) -> Result<(), String> {
    let got = waited(at);
    let close = got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9);
    if close {
        return Ok(());
    }
    let ms = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{:.2}", x * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "{} ranks, {} collectives: waited [{}] ms, but each rank waited [{}] ms (the latest \
         arrival of each collective minus its own, summed)",
        want.len(),
        at.len(),
        ms(&got),
        ms(want)
    ))
}
