//! Exercise 1.4: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=01 SOLUTION=1`, `cargo test -p ch01-send-recv --features solution`).

use crate::model::{AlphaBeta, Sample};

// ANCHOR: fit_alpha_beta
/// Weighted least squares (w = 1/t²) of `t = alpha + bytes / beta`.
pub fn fit_alpha_beta(samples: &[Sample]) -> Option<AlphaBeta> {
    let w = |s: &Sample| 1.0 / (s.seconds * s.seconds);
    let total: f64 = samples.iter().map(w).sum();
    if samples.is_empty() || !total.is_finite() {
        return None;
    }
    // Weighted means; centring on them keeps the sums small and the rounding low.
    let x_mean = samples.iter().map(|s| w(s) * s.bytes).sum::<f64>() / total;
    let t_mean = samples.iter().map(|s| w(s) * s.seconds).sum::<f64>() / total;
    let sxx: f64 = samples
        .iter()
        .map(|s| w(s) * (s.bytes - x_mean).powi(2))
        .sum();
    let sxt: f64 = samples
        .iter()
        .map(|s| w(s) * (s.bytes - x_mean) * (s.seconds - t_mean))
        .sum();
    let distinct = samples.iter().any(|s| s.bytes != samples[0].bytes);
    if !distinct || sxx <= 0.0 {
        return None; // all samples at one size: any slope fits
    }
    let slope = sxt / sxx; // seconds per byte = 1 / beta
    if slope <= 0.0 || !slope.is_finite() {
        return None;
    }
    Some(AlphaBeta {
        alpha: t_mean - slope * x_mean,
        beta: 1.0 / slope,
    })
}
// ANCHOR_END: fit_alpha_beta
