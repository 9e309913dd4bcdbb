//! Comparing a result with the truth: exact for integers, a stated bound for floats.
//!
//! Floating-point addition is not associative, so a sum reduced in another order (another
//! tree, another rank count) may differ in the last bits. How much? Summing n terms in any
//! order has an error of at most γ(n-1)·Σ|x| (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, §4.2), where γ(k) = k·u / (1 - k·u) and u = ε/2 is the unit
//! roundoff. This is the exact bound, not its first-order form (n-1)·u·Σ|x|. Two orders
//! each within that bound differ by at most 2·γ(n-1)·Σ|x|: the tolerance
//! [`sum_tolerance`] returns.

use crate::elem::Elem;
use crate::ops::Op;
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
    match first_difference(got, want) {
        None => Ok(()),
        Some((i, count)) => Err(format!(
            "{what}: element {i} is {:?} but expected {:?} ({count} of {} elements differ)",
            got[i],
            want[i],
            got.len()
        )),
    }
}

/// Where two slices of one length differ: the first index that differs and how many
/// do; `None` when they are equal.
pub fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Option<(usize, usize)> {
    let mut wrong = (0..got.len().min(want.len())).filter(|&i| got[i] != want[i]);
    wrong.next().map(|i| (i, 1 + wrong.count()))
}

/// How far two summation orders of `terms` values with absolute sum `abs_sum` may differ:
/// 2·γ(terms - 1)·`abs_sum` with u = ε/2 of `T` (0 for integers: their sums are the same
/// in any order; infinite when (terms - 1)·u >= 1, where the bound says nothing).
pub fn sum_tolerance<T: Elem>(terms: usize, abs_sum: f64) -> f64 {
    if T::EPSILON == 0.0 {
        return 0.0;
    }
    2.0 * gamma(terms.saturating_sub(1), T::EPSILON / 2.0) * abs_sum
}

/// Higham's γ(k) = k·u / (1 - k·u) for unit roundoff `u`: the relative error bound of a
/// sum of k + 1 terms; infinite once k·u >= 1.
pub fn gamma(k: usize, u: f64) -> f64 {
    let ku = k as f64 * u;
    if ku >= 1.0 {
        f64::INFINITY
    } else {
        ku / (1.0 - ku)
    }
}

/// Element-wise Σ|x| over `inputs`, one vector of `len` elements per rank: what
/// [`close_sums`] and [`reduction`] take as `abs_sums`.
pub fn abs_sums<T: Elem, V: AsRef<[T]>>(
    len: usize,
    inputs: impl IntoIterator<Item = V>,
) -> Vec<f64> {
    let mut sums = vec![0.0; len];
    for xs in inputs {
        for (s, x) in sums.iter_mut().zip(xs.as_ref()) {
            *s += x.to_f64().abs();
        }
    }
    sums
}

/// Whether `got` is within the summation bound of `want` (a NaN only matches a NaN).
fn sum_within<T: Elem>(got: T, want: T, abs_sum: f64, terms: usize) -> bool {
    let (g, w) = (got.to_f64(), want.to_f64());
    let beyond = (g - w).abs() > sum_tolerance::<T>(terms, abs_sum);
    !beyond && g.is_nan() == w.is_nan()
}

/// Ok if every `got[i]` is within the summation bound of `want[i]`, where element i is a
/// sum of `terms` values whose absolute values add up to `abs_sums[i]`.
pub fn close_sums<T: Elem>(
    what: &str,
    got: &[T],
    want: &[T],
    abs_sums: &[f64],
    terms: usize,
) -> Result<(), String> {
    if got.len() != want.len() {
        return exact(what, &vec![(); got.len()], &vec![(); want.len()]);
    }
    match (0..got.len()).find(|&i| !sum_within(got[i], want[i], abs_sums[i], terms)) {
        None => Ok(()),
        Some(i) => {
            let (g, w) = (got[i].to_f64(), want[i].to_f64());
            let tol = sum_tolerance::<T>(terms, abs_sums[i]);
            Err(format!(
                "{what}: element {i} is {g:e} but expected {w:e}; they differ by {:e}, more than \
                 {tol:e} = (terms-1)·ε·Σ|x| allowed for {terms} terms in another order",
                (g - w).abs()
            ))
        }
    }
}

/// Ok if `got`, the result of reducing `terms` values per element with `op`, is `want`.
/// Float sums may differ by the summation-order bound ([`close_sums`]; `abs_sums[i]` is
/// Σ|x| of element i's terms), since the two were added up in different orders. All else
/// is exact: integers wrap the same in any order; max, min and the user-defined ops pick
/// one of their inputs; and the checks multiply only powers of two, exact in any order.
pub fn reduction<T: Elem>(
    what: &str,
    op: Op,
    got: &[T],
    want: &[T],
    abs_sums: &[f64],
    terms: usize,
) -> Result<(), String> {
    match (T::IS_FLOAT, op) {
        (true, Op::Sum) => close_sums(what, got, want, abs_sums, terms),
        _ => exact(what, got, want),
    }
}

/// How many elements of `got` fail [`reduction`]'s comparison (every element of `want`,
/// at least 1, when the lengths differ): a benchmark's `#wrong` count.
pub fn reduction_errors<T: Elem>(
    op: Op,
    got: &[T],
    want: &[T],
    abs_sums: &[f64],
    terms: usize,
) -> usize {
    if got.len() != want.len() {
        return want.len().max(1);
    }
    let float_sum = T::IS_FLOAT && op == Op::Sum;
    let ok = |i: usize| match float_sum {
        true => sum_within(got[i], want[i], abs_sums[i], terms),
        false => got[i] == want[i],
    };
    (0..got.len()).filter(|&i| !ok(i)).count()
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
    fn the_tolerance_is_the_exact_gamma_bound_not_the_first_order_one() {
        let u = f32::EPSILON as f64 / 2.0;
        let want = 2.0 * (999.0 * u / (1.0 - 999.0 * u)) * 3.0;
        assert_eq!(sum_tolerance::<f32>(1000, 3.0), want);
        // Strictly above the first-order (n-1)·ε·Σ|x|, which it replaces.
        assert!(sum_tolerance::<f32>(1000, 3.0) > 999.0 * f32::EPSILON as f64 * 3.0);
        assert_eq!(sum_tolerance::<i32>(1000, 3.0), 0.0);
        assert_eq!(sum_tolerance::<f64>(1, 3.0), 0.0);
        assert_eq!(gamma(1 << 24, u), f64::INFINITY);
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
        let (got, want) = ([forward, missing], [backward, forward]);
        assert_eq!(
            reduction_errors(Op::Sum, &got, &want, &[abs; 2], xs.len()),
            1
        );
        assert_eq!(
            reduction_errors(Op::Max, &got, &want, &[abs; 2], xs.len()),
            2
        );
    }

    #[test]
    fn reductions_compare_exactly_except_float_sums() {
        let e = reduction("r", Op::Sum, &[3i32, 4], &[3, 5], &[9.0; 2], 2).unwrap_err();
        assert!(e.contains("element 1 is 4 but expected 5"), "{e}");
        assert!(reduction("r", Op::Sum, &[0.3f64], &[0.1 + 0.2], &[0.3], 2).is_ok());
        assert!(reduction("r", Op::Min, &[0.3f64], &[0.1 + 0.2], &[0.3], 2).is_err());
        assert_eq!(
            abs_sums(2, [vec![1.0f32, -2.0], vec![-3.0, 4.0]]),
            [4.0, 6.0]
        );
    }
}
