//! Chapter 10 exercise 10.2: solution.

use ch01::model::AlphaBeta;

// ANCHOR: crossover_slowdown
/// The smallest slowdown `s >= 1` at which recursive doubling is predicted no slower.
pub fn crossover_slowdown(fast: AlphaBeta, p: usize, bytes: usize) -> Option<f64> {
    if p < 2 || !p.is_power_of_two() {
        return None;
    }
    let (pf, l) = (p as f64, p.ilog2() as f64);
    let (alpha, x) = (fast.alpha, bytes as f64 / fast.beta);
    // doubling <= ring  <=>  s·gain >= needed, with
    let gain = x * (2.0 * (pf - 1.0) / pf - 1.0); // what each unit of s costs the ring more
    let needed = (l - 1.0) * x - (2.0 * (pf - 1.0) - l) * alpha; // doubling's head start
    if needed <= gain {
        Some(1.0)
    } else if gain <= 0.0 {
        None
    } else {
        Some(needed / gain)
    }
}
// ANCHOR_END: crossover_slowdown
