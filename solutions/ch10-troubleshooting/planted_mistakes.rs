//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them. Each runs the exercise's own check (tests/common) on a wrong answer and
//! pins the message a learner will see. Pure functions: no MPI.
//!
//! Run: `cargo test -p ch10-troubleshooting --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch10-troubleshooting/tests/common/mod.rs"]
mod common;

use ch10::find::SlowLink;
use ch10::matrix::PairFit;
use ch10::AlphaBeta;
use common::{check_crossover, check_finder, check_order, matrix};

// ANCHOR: mean_finder
/// Mistake 1: a finder that compares each link with the MEAN time of all links.
fn find_with_the_mean(fits: &[PairFit], bytes: usize, factor: f64) -> Vec<SlowLink> {
    let time = |f: &PairFit| f.link.predict(bytes as f64);
    let mean = fits.iter().map(time).sum::<f64>() / fits.len() as f64; // the mistake
    let mut slow: Vec<SlowLink> = fits
        .iter()
        .filter(|f| time(f) > factor * mean)
        .map(|f| SlowLink {
            a: f.a,
            b: f.b,
            times_median: time(f) / mean,
        })
        .collect();
    slow.sort_by(|x, y| y.times_median.total_cmp(&x.times_median));
    slow
}
// ANCHOR_END: mean_finder

#[test]
fn a_finder_with_the_mean_misses_two_slow_links() {
    let base = AlphaBeta {
        alpha: 2e-6,
        beta: 4e9,
    };
    // One slow link among six: the mean (1.67) is low enough, it is found.
    let one = matrix(4, base, &[(2, 3, 5.0)]);
    assert!(find_with_the_mean(&one, 1 << 20, 2.0).len() == 1);
    // Two: the mean rises to 2.5, 3 x the mean is 7.5, and neither stands out.
    let two = matrix(4, base, &[(0, 1, 5.0), (2, 3, 6.0)]);
    let err = check_finder(find_with_the_mean, &two, 3.0, &[(2, 3, 6.0), (0, 1, 5.0)]);
    let says = "6 links, factor 3: found [], but the slow links (slowest first) are \
                [(2, 3), (0, 1)] at [6.0, 5.0] x the median";
    assert_eq!(err, Err(says.to_string()));
}

// ANCHOR: counted_once
/// Mistake 2: the crossover of a ring that pays the slow link ONCE, not at each of its
/// 2(p-1) steps: `ring(s) = (2(p-1) - 1)·(alpha + x/p) + (alpha + s·x/p)`.
fn crossover_counted_once(fast: AlphaBeta, p: usize, bytes: usize) -> Option<f64> {
    if p < 2 || !p.is_power_of_two() {
        return None;
    }
    let (pf, l) = (p as f64, p.ilog2() as f64);
    let (alpha, x) = (fast.alpha, bytes as f64 / fast.beta);
    let ring_fixed = 2.0 * (pf - 1.0) * alpha + (2.0 * pf - 3.0) * x / pf;
    let doubling_fixed = l * alpha + (l - 1.0) * x;
    // doubling <= ring  <=>  s·(x/p - x) >= doubling_fixed - ring_fixed
    let (gain, needed) = (x / pf - x, doubling_fixed - ring_fixed);
    if needed <= gain {
        Some(1.0)
    } else if gain <= 0.0 {
        None
    } else {
        Some(needed / gain)
    }
}
// ANCHOR_END: counted_once

#[test]
fn a_crossover_with_the_slow_link_counted_once_never_crosses() {
    let fast = AlphaBeta {
        alpha: 1e-6,
        beta: 1e9,
    };
    let err = check_crossover(crossover_counted_once, fast, 8, 1 << 30).unwrap_err();
    assert!(
        err.starts_with("p=8, 1073741824 bytes, alpha=1e-6 s, beta=1e9 B/s: your crossover is None, but the model's ring and doubling times cross at Some(2.66"),
        "{err}"
    );
}

// ANCHOR: greedy_order
/// Mistake 3: a greedy ring order: from each rank, the lowest unused rank it has a fast
/// link to; the link back to rank 0, at the end, is never looked at.
fn greedy_order(p: usize, slow: &[(usize, usize)]) -> Vec<usize> {
    let is_slow = |a: usize, b: usize| slow.contains(&(a, b)) || slow.contains(&(b, a));
    let mut order = if p == 0 { vec![] } else { vec![0] };
    while order.len() < p {
        let last = *order.last().unwrap();
        let unused = (0..p).filter(|r| !order.contains(r));
        let fast = unused.clone().find(|&r| !is_slow(last, r));
        order.push(fast.or_else(|| unused.min()).unwrap());
    }
    order
}
// ANCHOR_END: greedy_order

#[test]
fn a_greedy_ring_order_forgets_the_link_back_to_rank_0() {
    assert_eq!(check_order(greedy_order, 8, &[(2, 3)]), Ok(()));
    let says = "p=4, slow [(0, 3)]: the ring through [0, 1, 2, 3] uses 1 slow links; an order \
                with 0 exists";
    assert_eq!(
        check_order(greedy_order, 4, &[(0, 3)]),
        Err(says.to_string())
    );
}

// Part 2: stragglers (ex 10.4, 10.5).

use ch10::straggler::{find_stragglers, RankScore};
use common::stragglers::{arrivals, check_stragglers, check_waited};

/// Scores each rank with `reference(row)` in place of the median of each collective.
fn score_against(at: &[Vec<f64>], reference: fn(&[f64]) -> f64) -> Vec<RankScore> {
    let p = at.first().map_or(0, Vec::len);
    (0..p)
        .map(|rank| RankScore {
            rank,
            lateness: at.iter().map(|row| row[rank] - reference(row)).sum::<f64>()
                / at.len() as f64,
            last: at
                .iter()
                .filter(|row| row.iter().all(|&t| t <= row[rank]))
                .count(),
        })
        .collect()
}

// ANCHOR: earliest_score
/// Mistake 4: lateness measured from the EARLIEST arrival of each collective.
fn score_from_the_earliest(at: &[Vec<f64>]) -> Vec<RankScore> {
    score_against(at, |row| row.iter().copied().fold(f64::INFINITY, f64::min))
}
// ANCHOR_END: earliest_score

#[test]
fn a_score_from_the_earliest_arrival_blames_everyone_but_an_early_rank() {
    // Rank 0 is always 1 ms early (it has less to do); nobody is late.
    let at = arrivals(4, 6, &[(1, 1e-3), (2, 1e-3), (3, 1e-3)], 0.0, 1);
    let err = check_stragglers(score_from_the_earliest, find_stragglers, &at, 0.5e-3, &[]);
    let says = "4 ranks, 6 collectives, threshold 0.50 ms: found [1, 2, 3], but the stragglers \
                (latest first) are []; your lateness per rank, ms: [0.00, 1.00, 1.00, 1.00]";
    assert_eq!(err, Err(says.to_string()));
}

// ANCHOR: mean_score
/// Mistake 5: lateness measured from the MEAN arrival, which the straggler itself pulls.
fn score_from_the_mean(at: &[Vec<f64>]) -> Vec<RankScore> {
    score_against(at, |row| row.iter().sum::<f64>() / row.len() as f64)
}
// ANCHOR_END: mean_score

#[test]
fn a_score_from_the_mean_arrival_hides_a_quarter_of_the_delay() {
    // 4 ranks, rank 1 2 ms late: the mean is 0.5 ms, so rank 1 scores 1.5 ms.
    let at = arrivals(4, 6, &[(1, 2e-3)], 0.0, 1);
    let err = check_stragglers(score_from_the_mean, find_stragglers, &at, 1.6e-3, &[1]);
    let says = "4 ranks, 6 collectives, threshold 1.60 ms: found [], but the stragglers \
                (latest first) are [1]; your lateness per rank, ms: [-0.50, 1.50, -0.50, -0.50]: \
                your score_ranks measures from the mean arrival, not the median: a late rank \
                pulls the mean towards itself, so it looks less late and everyone else looks \
                early";
    assert_eq!(err, Err(says.to_string()));
}

// ANCHOR: skew_waited
/// Mistake 6 (ex 10.5): every rank charged the whole skew of each collective (latest
/// minus EARLIEST arrival), not the latest minus its own.
fn waited_the_skew(at: &[Vec<f64>]) -> Vec<f64> {
    let p = at.first().map_or(0, Vec::len);
    let skew = |row: &Vec<f64>| {
        let (lo, hi) = row
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &t| (l.min(t), h.max(t)));
        hi - lo
    };
    vec![at.iter().map(skew).sum(); p]
}
// ANCHOR_END: skew_waited

#[test]
fn waiting_charged_as_the_skew_makes_the_straggler_wait_too() {
    let at = arrivals(4, 10, &[(3, 2e-3)], 0.0, 1);
    let err = check_waited(waited_the_skew, &at, &[20e-3, 20e-3, 20e-3, 0.0]);
    let says = "4 ranks, 10 collectives: waited [20.00, 20.00, 20.00, 20.00] ms, but each rank \
                waited [20.00, 20.00, 20.00, 0.00] ms (the latest arrival of each collective \
                minus its own, summed)";
    assert_eq!(err, Err(says.to_string()));
}

// Part 2: a desync check (ex 10.6).

use ch10::desync::{Fingerprint, Mismatch};
use common::desync::{check_odd_ranks, one_broadcast};

/// The verdict when `expected` is the reference: the ranks `same` as it agree.
fn split_by(
    all: &[Fingerprint],
    expected: Fingerprint,
    same: fn(&Fingerprint, &Fingerprint) -> bool,
) -> Option<Mismatch> {
    let (agree, odd): (Vec<_>, Vec<_>) = all
        .iter()
        .copied()
        .enumerate()
        .partition(|(_, f)| same(f, &expected));
    (!odd.is_empty()).then(|| Mismatch {
        expected,
        agree: agree.into_iter().map(|(r, _)| r).collect(),
        odd,
    })
}

// ANCHOR: rank_0_reference
/// Mistake 7: every rank compared with RANK 0's fingerprint, not the most common one.
fn odd_ranks_against_rank_0(all: &[Fingerprint]) -> Option<Mismatch> {
    split_by(all, *all.first()?, |a, b| a == b)
}
// ANCHOR_END: rank_0_reference

#[test]
fn a_check_against_rank_0_blames_every_other_rank_when_rank_0_is_odd() {
    assert_eq!(
        check_odd_ranks(odd_ranks_against_rank_0, &one_broadcast(4, 3)),
        Ok(())
    );
    let err = check_odd_ranks(odd_ranks_against_rank_0, &one_broadcast(4, 0));
    let says = "4 ranks: your odd_ranks says [collective #17 on this communicator: ranks 1-3 \
                call MPI_Allreduce(4194304 bytes); rank 0 calls MPI_Bcast(root=0 4194304 \
                bytes)], expected [collective #17 on this communicator: rank 0 calls \
                MPI_Bcast(root=0 4194304 bytes); ranks 1-3 call MPI_Allreduce(4194304 bytes)]";
    assert_eq!(err, Err(says.to_string()));
}

// ANCHOR: no_root
/// Mistake 8: fingerprints compared by their place, call and bytes: the ROOT left out.
fn odd_ranks_without_the_root(all: &[Fingerprint]) -> Option<Mismatch> {
    let same =
        |a: &Fingerprint, b: &Fingerprint| (a.seq, a.call, a.bytes) == (b.seq, b.call, b.bytes);
    let count = |f: &Fingerprint| all.iter().filter(|g| same(f, g)).count();
    // Of equal counts, `max_by_key` keeps the last: reversed, the lowest rank's.
    let expected = *all.iter().rev().max_by_key(|f| count(f))?;
    split_by(all, expected, same)
}
// ANCHOR_END: no_root

#[test]
fn a_check_without_the_root_misses_a_broadcast_from_another_root() {
    // Another call is still found.
    assert_eq!(
        check_odd_ranks(odd_ranks_without_the_root, &one_broadcast(4, 3)),
        Ok(())
    );
    // Rank 2 broadcasts 1 KiB from root 1; ranks 0, 1 and 3 from root 0.
    let mut all = one_broadcast(4, 0);
    all[0].bytes = 1024;
    all = vec![all[0]; 4];
    all[2].root = 1;
    let err = check_odd_ranks(odd_ranks_without_the_root, &all);
    let says = "4 ranks: your odd_ranks found no mismatch; expected: collective #17 on this \
                communicator: rank 2 calls MPI_Bcast(root=1 1024 bytes); ranks 0-1, 3 call \
                MPI_Bcast(root=0 1024 bytes)";
    assert_eq!(err, Err(says.to_string()));
}
