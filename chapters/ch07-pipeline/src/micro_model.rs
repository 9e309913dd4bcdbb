//! Given: how many micro-batches? A model of one pipeline step, to choose `m` before a run
//! (the benchmark, `make bench CH=07`, compares its choice with the measured best).
//!
//! A micro-batch of `b = B/m` rows costs a stage `k + c·b` seconds of forward and backward
//! (a fixed cost per call, `k`, and a cost per row, `c`), and crosses each stage boundary
//! twice (its activation forward, its gradient back) as a message of `b·r` bytes (`r`: bytes
//! per row), each `alpha + beta·b·r` seconds (chapter 1's alpha-beta model, `beta` in
//! seconds per byte). With equal stages, GPipe and 1F1B both take `m + p - 1` slots of one
//! micro-batch's time (the schedules page, section 7):
//!
//! ```text
//!   T(m) = (m + p - 1) · (K + L/m),   K = k + 2·alpha,   L = (c + 2·beta·r) · B
//! ```
//!
//! More micro-batches shrink the `p - 1` idle slots (each costs `K + L/m`) but every
//! micro-batch pays `K`: `T` is smallest at `m* = sqrt((p - 1)·L / K)`.
//!
//! Run its tests: `cargo test -p ch07-pipeline --lib micro_model`.

/// The costs of one micro-batch on one stage, as a function of its rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepModel {
    /// `K`: seconds every micro-batch pays whatever its size (calls and message latency).
    pub per_micro_batch: f64,
    /// `L`: seconds the whole batch's rows cost one stage (compute and message bytes).
    pub per_batch: f64,
}

impl StepModel {
    /// The model from a stage's compute line (`k` s per call, `c` s per row), the link
    /// (`alpha` s, `beta` s per byte), the bytes per row of a message and the batch.
    pub fn new(compute: Line, alpha: f64, beta: f64, row_bytes: f64, batch: usize) -> Self {
        StepModel {
            per_micro_batch: compute.fixed + 2.0 * alpha,
            per_batch: (compute.per_unit + 2.0 * beta * row_bytes) * batch as f64,
        }
    }

    /// `T(m)`: the seconds of one step at `p` stages and `m` micro-batches.
    pub fn step_time(&self, p: usize, m: usize) -> f64 {
        let slots = (m + p - 1) as f64;
        slots * (self.per_micro_batch + self.per_batch / m as f64)
    }

    /// `m* = sqrt((p - 1)·L / K)`, the best `m` if any real number were allowed.
    pub fn best_real_m(&self, p: usize) -> f64 {
        ((p - 1) as f64 * self.per_batch / self.per_micro_batch).sqrt()
    }

    /// The candidate with the smallest [`step_time`](Self::step_time) (the first on a tie).
    pub fn best_m(&self, p: usize, candidates: &[usize]) -> usize {
        let time = |m: &usize| self.step_time(p, *m);
        let best = candidates.iter().min_by(|a, b| time(a).total_cmp(&time(b)));
        *best.expect("at least one candidate m")
    }
}

/// A straight line `y = fixed + per_unit·x`, fitted by least squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// The value at `x = 0`.
    pub fixed: f64,
    /// The slope.
    pub per_unit: f64,
}

/// The least-squares line through `points` (`x`, `y`); at least two distinct `x`.
pub fn fit_line(points: &[(f64, f64)]) -> Line {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    assert!(sxx > 0.0, "fit_line needs two distinct x, got {points:?}");
    let per_unit = sxy / sxx;
    Line {
        fixed: my - per_unit * mx,
        per_unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fitted_exactly_and_noise_averages_out() {
        let exact = fit_line(&[(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)]);
        assert!((exact.fixed - 1.0).abs() < 1e-12 && (exact.per_unit - 2.0).abs() < 1e-12);
        let noisy = fit_line(&[(0.0, 1.1), (0.0, 0.9), (10.0, 21.1), (10.0, 20.9)]);
        assert!((noisy.fixed - 1.0).abs() < 1e-12 && (noisy.per_unit - 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_best_m_balances_the_bubble_against_the_cost_per_micro_batch() {
        // K = 1, L = 64: m* = sqrt((p-1)·64) = 8 at p = 2, 16 at p = 5.
        let model = StepModel {
            per_micro_batch: 1.0,
            per_batch: 64.0,
        };
        assert_eq!(model.best_real_m(2), 8.0);
        assert_eq!(model.best_real_m(5), 16.0);
        let candidates = [1, 2, 4, 8, 16, 32];
        assert_eq!(model.best_m(2, &candidates), 8);
        assert_eq!(model.best_m(5, &candidates), 16);
        // One stage has no bubble: every split only adds calls.
        assert_eq!(model.best_m(1, &candidates), 1);
        // T(m) = (m + p - 1)(K + L/m): p = 2, m = 8 -> 9 · (1 + 8) = 81.
        assert_eq!(model.step_time(2, 8), 81.0);
    }

    #[test]
    fn the_parts_add_up() {
        let compute = Line {
            fixed: 1e-4,
            per_unit: 1e-6,
        };
        let model = StepModel::new(compute, 5e-6, 1e-9, 512.0, 256);
        assert!((model.per_micro_batch - (1e-4 + 1e-5)).abs() < 1e-15);
        assert!((model.per_batch - (1e-6 + 2.0 * 1e-9 * 512.0) * 256.0).abs() < 1e-15);
    }
}
