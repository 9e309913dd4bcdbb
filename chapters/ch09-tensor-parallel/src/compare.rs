//! Given: how far a tensor-parallel result may lie from one process's, and why.
//!
//! A column-parallel layer computes each output feature with the same dot product as one
//! process: the same K terms, so at most the matrix kernel's own order differs (LibTorch
//! may pick another kernel for a narrower weight; on an AMD EPYC the two were 3.6e-15
//! apart in f64, elsewhere bit for bit). A row-parallel layer splits the sum by design:
//! one process sums the K terms of `x_k w_k` in one order, the group sums t partial sums
//! of K/t terms each. Floating-point addition is not associative; the classical bound (Higham,
//! "Accuracy and Stability of Numerical Algorithms", section 3.1) for a sum of K terms
//! in any order is `|computed - exact| <= γ_K Σ|x_k w_k|`, `γ_K = K u / (1 - K u)`, with u
//! the unit roundoff (2^-24 in f32, 2^-53 in f64). Both orders are within it of the exact
//! sum, so within `2 γ_K Σ|x_k w_k|` of each other: [`row_bound`], element by element.
//!
//! Through a whole block the two reassociated sums of each path (the output projection,
//! then the MLP's second layer; backward, f's sums of the input's gradient) and the layers
//! between them (norm, softmax, GeLU, whose slopes are small at this scale) carry the
//! difference on: [`block_bound`] takes `8 F u` relative to the largest value, F the
//! longest sum (the MLP's features): 2 for the two orders, 2 for two sums in a row, 2 of
//! margin for the slopes between. A wrong answer (a missing allreduce, a bias counted
//! twice) is off by the size of the values themselves, orders of magnitude above it.

use tch::{Kind, Tensor};

/// The unit roundoff of `kind`: 2^-24 (f32) or 2^-53 (f64).
pub fn unit_roundoff(kind: Kind) -> f64 {
    match kind {
        Kind::Float => f64::from(f32::EPSILON) / 2.0,
        Kind::Double => f64::EPSILON / 2.0,
        other => panic!("no roundoff for {other:?}: the layers run in f32 or f64"),
    }
}

/// The largest absolute difference of `a` and `b` (same shape), as f64.
pub fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    let d = (a.detach().to_kind(Kind::Double) - b.detach().to_kind(Kind::Double)).abs();
    d.max().double_value(&[])
}

/// The largest absolute value of `a`, as f64.
pub fn max_abs(a: &Tensor) -> f64 {
    a.detach()
        .to_kind(Kind::Double)
        .abs()
        .max()
        .double_value(&[])
}

// ANCHOR: bounds
/// Element by element, how far two orders of the row-parallel sum `x W^T` may differ:
/// `2 γ_K (|x| |W|^T)`, K the input features (computed in f64).
pub fn row_bound(x: &Tensor, w: &Tensor) -> Tensor {
    let k = *w.size().last().expect("a weight [out, in]") as f64;
    let u = unit_roundoff(x.kind());
    let gamma = k * u / (1.0 - k * u);
    let (x, w) = (
        x.detach().to_kind(Kind::Double),
        w.detach().to_kind(Kind::Double),
    );
    x.abs().matmul(&w.abs().tr()) * (2.0 * gamma)
}

/// The bound on a block's output or gradient: `8 F u max(1, max|reference|)`, F the
/// longest reassociated sum (see the module's documentation).
pub fn block_bound(reference: &Tensor, longest_sum: usize) -> f64 {
    let u = unit_roundoff(reference.kind());
    8.0 * longest_sum as f64 * u * max_abs(reference).max(1.0)
}
// ANCHOR_END: bounds

// ANCHOR: training_bounds
/// The bound on a GPT's loss or gradient after one forward and backward on a grid:
/// [`block_bound`]'s `8 F u max(1, max|reference|)` once per block and once for the
/// embedding and head together (`layers + 1` stretches of reassociated sums in a row),
/// F the longest reassociated sum: the MLP's features, the vocabulary (the head's sum
/// over the columns of all ranks), or the global batch's tokens (a weight's gradient
/// summed over the replicas' tokens).
pub fn gpt_bound(reference: &Tensor, longest_sum: usize, layers: usize) -> f64 {
    (layers + 1) as f64 * block_bound(reference, longest_sum)
}

/// How far a parameter may drift after `steps` of Adam at `lr` when each step's
/// gradients differ by at most `grad_bound`: Adam's update `m̂ / (sqrt(v̂) + ε)` moves by
/// at most `1/ε` per unit of gradient (its slope `ε / (|g| + ε)²` at the first step), so
/// `steps lr grad_bound / ε`, ε = 1e-8. First order: the drift's own effect on later
/// gradients is a product of two such small numbers.
pub fn adam_bound(grad_bound: f64, lr: f64, steps: usize) -> f64 {
    steps as f64 * lr * grad_bound / 1e-8
}
// ANCHOR_END: training_bounds
