//! Exercise 1.4: fit the alpha-beta model to measured message times.
//!
//! A pure function: no MPI. Check: `make check CH=01`; the `pingpong` lab
//! (`make run CH=01 BIN=pingpong`) feeds it real measurements.
#![allow(unused_variables)] // the stub does not use its arguments yet

use crate::model::{AlphaBeta, Sample};

// ANCHOR: fit_alpha_beta
/// Fits `seconds = alpha + bytes / beta` to `samples` by weighted least squares: the
/// line `t = a + b·x` (x = bytes, t = seconds, b = 1/beta) that minimises
/// `Σ w·(a + b·x - t)²` with weights `w = 1/t²`, i.e. the squared *relative* errors of
/// [`crate::model::relative_error`]. Then `alpha = a` and `beta = 1/b`.
///
/// Returns `None` when no line is defined: fewer than 2 distinct sizes among the
/// samples, or a slope `b` that is not positive (times that do not grow with size).
/// Every sample has `seconds > 0`.
pub fn fit_alpha_beta(samples: &[Sample]) -> Option<AlphaBeta> {
    // TODO(ex 1.4): weighted means of x and t, then the slope and the intercept
    todo!("ex 1.4: fit alpha and beta by least squares on the relative error")
}
// ANCHOR_END: fit_alpha_beta
