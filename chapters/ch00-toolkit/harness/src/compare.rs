//! Comparing a result with the truth: exact for integers, a stated bound for floats.
//!
//! Floating-point addition is not associative, so a sum reduced in another order (another
//! tree, another rank count) may differ in the last bits. How much? Summing n terms in any
//! order has an error of at most (n-1)·u·Σ|x| (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, §4.2), with u = ε/2 the unit roundoff. Two orders each within
//! that bound differ by at most (n-1)·ε·Σ|x|: the tolerance [`sum_tolerance`] returns.

use std::fmt::Debug;

/// Ok if `got == want` element for element; else where, and how many differ.
pub fn exact<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: length {} but expected {} (a count or a chunk size is off)",
            got.len(),
            want.len()
        ));
    }
    let mut wrong = (0..got.len()).filter(|&i| got[i] != want[i]);
    match wrong.next() {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {:?} but expected {:?} ({} of {} elements differ)",
            got[i],
            want[i],
            1 + wrong.count(),
            got.len()
        )),
    }
}

/// Floating-point element types the checks know the epsilon of.
pub trait Float: Copy + Debug + Into<f64> {
    /// Machine epsilon: the gap between 1 and the next representable number.
    const EPSILON: f64;
}
impl Float for f32 {
    const EPSILON: f64 = f32::EPSILON as f64;
}
impl Float for f64 {
    const EPSILON: f64 = f64::EPSILON;
}

/// How far two summation orders of `terms` values with absolute sum `abs_sum` may differ.
pub fn sum_tolerance<T: Float>(terms: usize, abs_sum: f64) -> f64 {
    terms.saturating_sub(1) as f64 * T::EPSILON * abs_sum
}

/// Ok if every `got[i]` is within the summation bound of `want[i]`, where element i is a
/// sum of `terms` values whose absolute values add up to `abs_sums[i]`.
pub fn close_sums<T: Float>(
    what: &str,
    got: &[T],
    want: &[T],
    abs_sums: &[f64],
    terms: usize,
) -> Result<(), String> {
    if got.len() != want.len() {
        return exact(what, &vec![(); got.len()], &vec![(); want.len()]);
    }
    for i in 0..got.len() {
        let (g, w) = (got[i].into(), want[i].into());
        let tol = sum_tolerance::<T>(terms, abs_sums[i]);
        if (g - w).abs() > tol || g.is_nan() != w.is_nan() {
            return Err(format!(
                "{what}: element {i} is {g:e} but expected {w:e}; they differ by {:e}, more than \
                 {tol:e} = (terms-1)·ε·Σ|x| allowed for {terms} terms in another order",
                (g - w).abs()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_the_first_difference() {
        assert!(exact("v", &[1, 2, 3], &[1, 2, 3]).is_ok());
        let e = exact("v", &[1, 9, 9], &[1, 2, 3]).unwrap_err();
        assert!(e.contains("element 1 is 9 but expected 2 (2 of 3"), "{e}");
        assert!(exact("v", &[1], &[1, 2])
            .unwrap_err()
            .contains("length 1 but expected 2"));
    }

    #[test]
    fn sums_in_another_order_stay_within_the_bound() {
        let xs: Vec<f32> = (0..1000)
            .map(|i| ((i * 7919) % 1000) as f32 * 1.37e-3 - 0.5)
            .collect();
        let forward: f32 = xs.iter().sum();
        let backward: f32 = xs.iter().rev().sum();
        let abs: f64 = xs.iter().map(|x| x.abs() as f64).sum();
        assert!(close_sums("sum", &[forward], &[backward], &[abs], xs.len()).is_ok());
        // A wrong sum (one term missing) is caught.
        let missing: f32 = xs[1..].iter().sum();
        assert!(close_sums("sum", &[missing], &[forward], &[abs], xs.len()).is_err());
    }
}
