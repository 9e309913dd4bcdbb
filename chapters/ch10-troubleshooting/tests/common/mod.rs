//! Shared checks of chapter 10's exercises: each takes the function under test and
//! returns `Err(message)` naming the case it got wrong, so the exercise's test and the
//! planted mistakes (solutions/ch10-troubleshooting/planted_mistakes.rs) use the same one.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

pub mod desync;
pub mod stragglers;

use ch10::find::SlowLink;
use ch10::matrix::PairFit;
use ch10::model::{doubling_time, ring_time, slowed, Links};
use ch10::AlphaBeta;

/// A matrix of `p` ranks with every link `base`, but link `(a, b)` of `slow` whose time is
/// `base`'s times its factor (latency and bandwidth both scaled).
pub fn matrix(p: usize, base: AlphaBeta, slow: &[(usize, usize, f64)]) -> Vec<PairFit> {
    let mut fits = vec![];
    for a in 0..p {
        for b in a + 1..p {
            let s = slow
                .iter()
                .find(|(x, y, _)| (*x, *y) == (a, b))
                .map_or(1.0, |t| t.2);
            let link = AlphaBeta {
                alpha: base.alpha * s,
                beta: base.beta / s,
            };
            fits.push(PairFit { a, b, link });
        }
    }
    fits
}

/// Checks a slow-link finder on a matrix whose slow links (and their factors over the
/// median link) are known.
pub fn check_finder(
    find: fn(&[PairFit], usize, f64) -> Vec<SlowLink>,
    fits: &[PairFit],
    factor: f64,
    want: &[(usize, usize, f64)],
) -> Result<(), String> {
    let got = find(fits, 1 << 20, factor);
    let pairs: Vec<(usize, usize)> = got.iter().map(|s| (s.a, s.b)).collect();
    let expected: Vec<(usize, usize)> = want.iter().map(|w| (w.0, w.1)).collect();
    if pairs != expected {
        return Err(format!(
            "{} links, factor {factor}: found {pairs:?}, but the slow links (slowest first) \
             are {expected:?} at {:?} x the median",
            fits.len(),
            want.iter().map(|w| w.2).collect::<Vec<_>>()
        ));
    }
    for (g, w) in got.iter().zip(want) {
        if (g.times_median - w.2).abs() > 1e-9 * w.2 {
            return Err(format!(
                "link {}-{}: times_median {}, but it is {} x the median link",
                g.a, g.b, g.times_median, w.2
            ));
        }
    }
    Ok(())
}

/// The brute-force crossover: the smallest slowdown on a fine grid (relative steps of
/// `2e-4` from 1 up to 100) at which the model's doubling is no slower than its ring,
/// with the slow link between ranks 0 and 1.
pub fn crossover_by_search(fast: AlphaBeta, p: usize, bytes: usize) -> Option<f64> {
    let mut s = 1.0;
    while s < 100.0 {
        let links = Links {
            fast,
            slow: vec![(0, 1, slowed(fast, s))],
        };
        if doubling_time(&links, p, bytes) <= ring_time(&links, p, bytes) {
            return Some(s);
        }
        s *= 1.0 + 2e-4;
    }
    None
}

/// Checks a crossover function against the brute-force search at one case.
pub fn check_crossover(
    crossover: fn(AlphaBeta, usize, usize) -> Option<f64>,
    fast: AlphaBeta,
    p: usize,
    bytes: usize,
) -> Result<(), String> {
    let got = crossover(fast, p, bytes);
    let want = crossover_by_search(fast, p, bytes);
    let close = match (got, want) {
        (Some(g), Some(w)) => (g - w).abs() <= 4e-4 * w,
        (None, None) => true,
        _ => false,
    };
    if close {
        return Ok(());
    }
    Err(format!(
        "p={p}, {bytes} bytes, alpha={:e} s, beta={:e} B/s: your crossover is {got:?}, but \
         the model's ring and doubling times cross at {want:?} (searched from s=1 up)",
        fast.alpha, fast.beta
    ))
}

/// How many links of the ring through `order` are slow.
pub fn crossings(order: &[usize], slow: &[(usize, usize)]) -> usize {
    let p = order.len();
    let is_slow = |a: usize, b: usize| {
        slow.iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    };
    (0..p)
        .filter(|&i| p > 1 && is_slow(order[i], order[(i + 1) % p]))
        .count()
}

/// The fewest crossings of any order from 0, by trying every one.
pub fn fewest(p: usize, slow: &[(usize, usize)]) -> usize {
    fn all(
        rest: &mut Vec<usize>,
        order: &mut Vec<usize>,
        slow: &[(usize, usize)],
        best: &mut usize,
    ) {
        if rest.is_empty() {
            *best = (*best).min(crossings(order, slow));
        }
        for i in 0..rest.len() {
            let r = rest.remove(i);
            order.push(r);
            all(rest, order, slow, best);
            order.pop();
            rest.insert(i, r);
        }
    }
    let mut best = usize::MAX;
    all(&mut (1..p).collect(), &mut vec![0], slow, &mut best);
    best
}

/// A ring-order function: ranks, slow links -> an order of the ranks.
pub type RingOrder = fn(usize, &[(usize, usize)]) -> Vec<usize>;

/// Checks a ring-order function at one case against every order.
pub fn check_order(ring_order: RingOrder, p: usize, slow: &[(usize, usize)]) -> Result<(), String> {
    let order = ring_order(p, slow);
    let mut sorted = order.clone();
    sorted.sort();
    if sorted != (0..p).collect::<Vec<_>>() || (p > 0 && order[0] != 0) {
        return Err(format!(
            "p={p}: {order:?} is not an order of 0..{p} starting at 0"
        ));
    }
    let (got, want) = (
        crossings(&order, slow),
        if p == 0 { 0 } else { fewest(p, slow) },
    );
    if got != want {
        return Err(format!(
            "p={p}, slow {slow:?}: the ring through {order:?} uses {got} slow links; an order \
             with {want} exists"
        ));
    }
    Ok(())
}
