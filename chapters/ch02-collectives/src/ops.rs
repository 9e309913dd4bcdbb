//! Given code: the element types and reduction operations of this chapter.
//!
//! A reduction combines one value per rank with a binary operation `∘`. MPI requires `∘`
//! to be associative; it may assume commutativity only when told so. [`Op`] holds the four
//! predefined operations the tests use (sum, product, max, min) and two user-defined ones:
//! [`Op::AbsMax`] (commutative) and [`Op::First`] (not commutative: `a ∘ b = a`), which
//! catches code that combines values out of rank order.
//!
//! Nothing to run here; `reference` turns each [`Op`] into MPI's own operation.

use mpi::datatype::Equivalence;
use std::fmt::Debug;

/// An element type the chapter's collectives work on: `i32`, `i64`, `f32` or `f64`.
pub trait Elem: Equivalence + Copy + Debug + PartialEq + PartialOrd + Default + 'static {
    /// The type's name, for reports (`"f64"`).
    const NAME: &'static str;
    /// Whether rounding happens (floats), so sums in another order may differ a little.
    const IS_FLOAT: bool;
    /// `self + other`; integers wrap around instead of panicking on overflow.
    fn plus(self, other: Self) -> Self;
    /// `self * other`; integers wrap around instead of panicking on overflow.
    fn times(self, other: Self) -> Self;
    /// `|self|` (integers: `wrapping_abs`).
    fn magnitude(self) -> Self;
    /// `x` converted with `as` (test data and lab inputs are made from `f64`s).
    fn from_f64(x: f64) -> Self;
    /// `self` converted with `as`.
    fn to_f64(self) -> f64;
}

macro_rules! int_elem {
    ($t:ty) => {
        impl Elem for $t {
            const NAME: &'static str = stringify!($t);
            const IS_FLOAT: bool = false;
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            fn times(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            fn magnitude(self) -> Self {
                self.wrapping_abs()
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

macro_rules! float_elem {
    ($t:ty) => {
        impl Elem for $t {
            const NAME: &'static str = stringify!($t);
            const IS_FLOAT: bool = true;
            fn plus(self, other: Self) -> Self {
                self + other
            }
            fn times(self, other: Self) -> Self {
                self * other
            }
            fn magnitude(self) -> Self {
                self.abs()
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

int_elem!(i32);
int_elem!(i64);
float_elem!(f32);
float_elem!(f64);

// ANCHOR: op
/// A reduction operation `a ∘ b`, applied element by element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `a + b` (MPI_SUM).
    Sum,
    /// `a * b` (MPI_PROD).
    Product,
    /// The larger (MPI_MAX).
    Max,
    /// The smaller (MPI_MIN).
    Min,
    /// User-defined, commutative: the one with the larger magnitude (ties: the larger).
    AbsMax,
    /// User-defined, NOT commutative: `a ∘ b = a`, the left operand. Reduced in rank
    /// order, the result is rank 0's value; any other order gives another rank's value.
    First,
}

impl Op {
    /// `a ∘ b`. The order matters for [`Op::First`]: `a` is the value of the lower ranks.
    pub fn apply<T: Elem>(self, a: T, b: T) -> T {
        match self {
            Op::Sum => a.plus(b),
            Op::Product => a.times(b),
            Op::Max => max(a, b),
            Op::Min => {
                if b < a {
                    b
                } else {
                    a
                }
            }
            Op::AbsMax => match a.magnitude().partial_cmp(&b.magnitude()) {
                Some(std::cmp::Ordering::Less) => b,
                Some(std::cmp::Ordering::Greater) => a,
                _ => max(a, b),
            },
            Op::First => a,
        }
    }

    /// `left[i] = left[i] ∘ right[i]` for every i: combine `right` (values of HIGHER
    /// ranks) into `left` (values of lower ranks). Panics if the lengths differ.
    pub fn fold_right_into<T: Elem>(self, left: &mut [T], right: &[T]) {
        assert_eq!(
            left.len(),
            right.len(),
            "{self:?}: operands of different lengths"
        );
        for (l, r) in left.iter_mut().zip(right) {
            *l = self.apply(*l, *r);
        }
    }

    /// `right[i] = left[i] ∘ right[i]` for every i: combine `left` (values of LOWER
    /// ranks) into `right` (values of higher ranks). Panics if the lengths differ.
    pub fn fold_left_into<T: Elem>(self, left: &[T], right: &mut [T]) {
        assert_eq!(
            left.len(),
            right.len(),
            "{self:?}: operands of different lengths"
        );
        for (l, r) in left.iter().zip(right.iter_mut()) {
            *r = self.apply(*l, *r);
        }
    }

    /// Whether `a ∘ b == b ∘ a` for all a, b (false only for [`Op::First`]).
    pub fn is_commutative(self) -> bool {
        self != Op::First
    }

    /// Every operation, for tests and the lab.
    pub const ALL: [Op; 6] = [
        Op::Sum,
        Op::Product,
        Op::Max,
        Op::Min,
        Op::AbsMax,
        Op::First,
    ];
}
// ANCHOR_END: op

fn max<T: Elem>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_is_associative_but_not_commutative() {
        let (a, b, c) = (1i64, 2, 3);
        let op = Op::First;
        assert_eq!(op.apply(op.apply(a, b), c), op.apply(a, op.apply(b, c)));
        assert_ne!(op.apply(a, b), op.apply(b, a));
    }

    #[test]
    fn abs_max_is_commutative_even_on_ties() {
        for (a, b) in [(-3.0f64, 3.0), (2.0, -5.0), (0.0, -0.0)] {
            assert_eq!(Op::AbsMax.apply(a, b), Op::AbsMax.apply(b, a));
        }
        assert_eq!(Op::AbsMax.apply(-7i32, 3), -7);
    }

    #[test]
    fn folds_keep_lower_ranks_on_the_left() {
        let mut low = [1i32, 2];
        Op::First.fold_right_into(&mut low, &[9, 9]);
        assert_eq!(low, [1, 2]);
        let mut high = [9i32, 9];
        Op::First.fold_left_into(&[1, 2], &mut high);
        assert_eq!(high, [1, 2]);
    }
}
