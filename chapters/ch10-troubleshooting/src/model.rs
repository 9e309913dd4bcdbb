//! Given code: what chapter 3's allreduces cost when one link is slower than the others.
//!
//! One message of `x` bytes between ranks `a` and `b` costs `alpha + x / beta` of that
//! link (chapter 1's [`AlphaBeta`]); computation is left out (the links decide here).
//! - The ring: `2(p-1)` steps; in each, every rank sends one chunk of `n / p` bytes to its
//!   right neighbour, and a step ends only when its slowest message has arrived. A slow
//!   link between two neighbours is therefore paid at **every** step:
//!   `2(p-1) · max over the ring's links of m(n/p)`.
//! - Recursive doubling (chapter 3's, extra ranks folded in first): a few rounds, each
//!   moving the **whole** vector between partners: `Σ over rounds of max m(n)`. A slow link
//!   costs only in the rounds whose partners it joins (one, for `2-3` at 8 ranks).
//! - The binomial tree (chapter 3's `allreduce_binomial_tree`: chapter 2's reduce to rank
//!   0, then its broadcast): the same rounds up and down, the whole vector in each. At 4
//!   ranks its pairs are 0-1, 2-3, then 0-2: a slow link 1-2 costs it nothing.
//!
//! Nothing to run here: the lab and the tests use it.

use ch01::model::AlphaBeta;
use toolkit::slow_links::SlowLink;

/// The links of a job: `fast` everywhere, but for the `slow` ones (either direction).
#[derive(Clone, Debug, PartialEq)]
pub struct Links {
    /// Every link not listed in `slow`.
    pub fast: AlphaBeta,
    /// `(a, b, link)`: the link between ranks `a` and `b`.
    pub slow: Vec<(usize, usize, AlphaBeta)>,
}

impl Links {
    /// The link between `a` and `b`.
    pub fn between(&self, a: usize, b: usize) -> AlphaBeta {
        let slow = self
            .slow
            .iter()
            .find(|(x, y, _)| (*x, *y) == (a, b) || (*x, *y) == (b, a));
        slow.map_or(self.fast, |(_, _, link)| *link)
    }
}

/// A link with the latency of `fast` and its bandwidth divided by `slowdown`.
pub fn slowed(fast: AlphaBeta, slowdown: f64) -> AlphaBeta {
    AlphaBeta {
        alpha: fast.alpha,
        beta: fast.beta / slowdown,
    }
}

/// `fast` with what a `WORKBOOK_SLOW_LINK` rule adds to each message: its delay on the
/// latency, and its rate in series with the bandwidth (`1/beta + 1/rate` seconds a byte).
pub fn with_rule(fast: AlphaBeta, rule: &SlowLink) -> AlphaBeta {
    let per_byte = 1.0 / fast.beta + rule.rate.map_or(0.0, |r| 1.0 / r);
    AlphaBeta {
        alpha: fast.alpha + rule.delay.as_secs_f64(),
        beta: 1.0 / per_byte,
    }
}

// ANCHOR: ring_time
/// The ring allreduce of `bytes` bytes over `p` ranks: `2(p-1)` steps, each as long as
/// the slowest of the ring's links `r -> r+1` takes for one chunk.
pub fn ring_time(links: &Links, p: usize, bytes: usize) -> f64 {
    if p < 2 {
        return 0.0;
    }
    let chunk = bytes as f64 / p as f64;
    let step = (0..p)
        .map(|r| links.between(r, (r + 1) % p).predict(chunk))
        .fold(0.0, f64::max);
    2.0 * (p as f64 - 1.0) * step
}
// ANCHOR_END: ring_time

/// The rounds of chapter 3's recursive doubling over `p` ranks, each as the pairs of
/// ranks that exchange in it: the fold-in (when `p` is not a power of two), the
/// `log2 q` rounds, the fold-out.
pub fn doubling_rounds(p: usize) -> Vec<Vec<(usize, usize)>> {
    if p < 2 {
        return vec![];
    }
    let q = 1usize << p.ilog2();
    let extra = p - q;
    let real = |v: usize| if v < extra { 2 * v + 1 } else { v + extra };
    let fold: Vec<(usize, usize)> = (0..extra).map(|e| (2 * e, 2 * e + 1)).collect();
    let mut rounds = vec![];
    if extra > 0 {
        rounds.push(fold.clone());
    }
    let mut mask = 1;
    while mask < q {
        let pairs = (0..q).filter(|v| v & mask == 0);
        rounds.push(pairs.map(|v| (real(v), real(v ^ mask))).collect());
        mask <<= 1;
    }
    if extra > 0 {
        rounds.push(fold);
    }
    rounds
}

// ANCHOR: doubling_time
/// One round: every pair of `pairs` exchanges (or one sends the other) `bytes` bytes at
/// once; the round lasts as long as its slowest pair.
pub fn round_time(links: &Links, pairs: &[(usize, usize)], bytes: usize) -> f64 {
    let times = pairs
        .iter()
        .map(|&(a, b)| links.between(a, b).predict(bytes as f64));
    times.fold(0.0, f64::max)
}

/// Recursive doubling of `bytes` bytes over `p` ranks: every round moves the whole vector.
pub fn doubling_time(links: &Links, p: usize, bytes: usize) -> f64 {
    let rounds = doubling_rounds(p);
    rounds.iter().map(|r| round_time(links, r, bytes)).sum()
}
// ANCHOR_END: doubling_time

// ANCHOR: tree_time
/// The rounds of the binomial tree over `p` ranks, each as its (parent, child) pairs: in
/// round `m = 1, 2, 4, ...` rank `r` with `r % 2m == m` sends its partial sum to `r - m`
/// (chapter 2's reduce); the broadcast goes down the same pairs in the reverse order.
pub fn tree_rounds(p: usize) -> Vec<Vec<(usize, usize)>> {
    let mut rounds = vec![];
    let mut m = 1;
    while m < p {
        rounds.push((m..p).step_by(2 * m).map(|r| (r - m, r)).collect());
        m <<= 1;
    }
    rounds
}

/// The binomial tree's allreduce of `bytes` bytes over `p` ranks: up the rounds of
/// [`tree_rounds`], then down them, the whole vector in each.
pub fn tree_time(links: &Links, p: usize, bytes: usize) -> f64 {
    let rounds = tree_rounds(p);
    2.0 * rounds
        .iter()
        .map(|r| round_time(links, r, bytes))
        .sum::<f64>()
}
// ANCHOR_END: tree_time

/// The size (bytes per rank) from which the ring's predicted time stays at or below the
/// tree's, on a grid of eight sizes per doubling from 64 B to 1 GiB; `None` when the tree
/// is predicted faster up to 1 GiB (the slow link costs the ring more than the tree's
/// extra bytes), and 64 B when the ring is faster at every size.
pub fn ring_beats_tree_from(links: &Links, p: usize) -> Option<usize> {
    let grid: Vec<usize> = (48..=240)
        .map(|k| 2f64.powf(k as f64 / 8.0) as usize)
        .collect();
    let ring_wins = |&n: &usize| ring_time(links, p, n) <= tree_time(links, p, n);
    let last_loss = grid.iter().rposition(|n| !ring_wins(n));
    match last_loss {
        None => Some(grid[0]),
        Some(i) if i + 1 < grid.len() => Some(grid[i + 1]),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: AlphaBeta = AlphaBeta {
        alpha: 1e-6,
        beta: 1e9,
    };

    #[test]
    fn the_rounds_are_chapter_3s() {
        assert_eq!(
            doubling_rounds(4),
            vec![vec![(0, 1), (2, 3)], vec![(0, 2), (1, 3)]]
        );
        // 3 ranks: 0 folds into 1; then 1 and 2 exchange; 1 gives the result back
        assert_eq!(
            doubling_rounds(3),
            vec![vec![(0, 1)], vec![(1, 2)], vec![(0, 1)]]
        );
        assert_eq!(doubling_rounds(8).len(), 3);
        assert!(doubling_rounds(1).is_empty());
    }

    #[test]
    fn a_slow_link_costs_the_ring_every_step_and_doubling_one_round() {
        let slow = slowed(FAST, 10.0);
        let links = Links {
            fast: FAST,
            slow: vec![(2, 3, slow)],
        };
        let n = 8 << 20;
        let ring = 14.0 * slow.predict(n as f64 / 8.0);
        assert!((ring_time(&links, 8, n) - ring).abs() < 1e-12);
        let doubling = 2.0 * FAST.predict(n as f64) + slow.predict(n as f64);
        assert!((doubling_time(&links, 8, n) - doubling).abs() < 1e-12);
    }

    #[test]
    fn the_tree_leaves_link_1_2_out_at_4_ranks_and_the_ring_pays_it() {
        assert_eq!(tree_rounds(4), vec![vec![(0, 1), (2, 3)], vec![(0, 2)]]);
        assert_eq!(tree_rounds(5)[2], vec![(0, 4)]);
        assert!(tree_rounds(1).is_empty());
        let uniform = Links {
            fast: FAST,
            slow: vec![],
        };
        let slow = |s: f64| Links {
            fast: FAST,
            slow: vec![(1, 2, slowed(FAST, s))],
        };
        let n = 1 << 20;
        assert_eq!(tree_time(&slow(10.0), 4, n), tree_time(&uniform, 4, n));
        assert!((tree_time(&uniform, 4, n) - 4.0 * FAST.predict(n as f64)).abs() < 1e-12);
        // uniform: 6 alpha + 1.5 x (ring) against 4 alpha + 4 x (tree): the ring wins from
        // 0.8 alpha beta = 800 B on
        let from = ring_beats_tree_from(&uniform, 4).unwrap();
        assert!((800..900).contains(&from), "{from}");
        // 1-2 twice as slow: 6 alpha + 3 x against 4 alpha + 4 x: from 2 alpha beta
        let from = ring_beats_tree_from(&slow(2.0), 4).unwrap();
        assert!((2000..2200).contains(&from), "{from}");
        // past 8/3 the tree wins at every size
        assert_eq!(ring_beats_tree_from(&slow(3.0), 4), None);
        // the slow link on the tree's edge 0-2 instead: 4 alpha + 2 (1 + s) x against the
        // ring's 6 alpha + 1.5 x: at s = 10 the ring wins from 2 / 20.5 alpha beta = 98 B
        let on_the_tree = Links {
            fast: FAST,
            slow: vec![(0, 2, slowed(FAST, 10.0))],
        };
        let from = ring_beats_tree_from(&on_the_tree, 4).unwrap();
        assert!((90..110).contains(&from), "{from}");
    }
}
