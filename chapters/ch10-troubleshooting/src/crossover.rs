//! Chapter 10 exercise 10.2: the slowdown from which recursive doubling beats the ring.
//!
//! One link, between two ring neighbours that are also partners in one round of
//! recursive doubling (ranks 2 and 3, say), has its bandwidth divided by `s`; every other
//! link is `fast`. With `x = n / beta` and `L = log2 p`, the model of [`crate::model`]
//! gives:
//! - ring: `2(p-1) · (alpha + s·x/p)` (the slow link at every step);
//! - doubling: `(L-1)·(alpha + x) + (alpha + s·x)` (the slow link in one round).
//!
//! Check with `make check CH=10`.
#![allow(unused_variables)] // the stub does not use its arguments yet

use ch01::model::AlphaBeta;

// ANCHOR: crossover_slowdown
/// The smallest slowdown `s >= 1` of the slow link's bandwidth at which recursive
/// doubling is predicted no slower than the ring, for `bytes` bytes over `p` ranks:
/// `Some(1.0)` when doubling is no slower even with no slowdown, `None` when the ring
/// stays faster at every slowdown, or when `p` is not a power of two of at least 2.
pub fn crossover_slowdown(fast: AlphaBeta, p: usize, bytes: usize) -> Option<f64> {
    // TODO(ex 10.2): set ring(s) = doubling(s) and solve for s
    todo!("ex 10.2: the slowdown where the two predictions cross")
}
// ANCHOR_END: crossover_slowdown
