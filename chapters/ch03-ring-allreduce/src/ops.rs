//! Given code: the element types and the reduction operations of this chapter.
//!
//! A ring allreduce combines the chunks in a different order on every rank, so it needs a
//! commutative (and associative) operation. [`Op`] holds three predefined ones (sum, max,
//! min) and one user-defined one, [`Op::AbsMax`] (the value of larger magnitude), which
//! MPI only knows through a user-defined `MPI_Op`.
//!
//! Nothing to run here. [`Op::reduce_into`] is the chunk reduction kernel every algorithm
//! of the chapter calls; `benches/benches/ring_allreduce.rs` times it.

use mpi::datatype::Equivalence;
use std::fmt::Debug;

/// An element type of the chapter: `i32`, `i64`, `f32` or `f64`.
pub trait Elem:
    Equivalence + Copy + Debug + PartialEq + PartialOrd + Default + Send + 'static
{
    /// The type's name, for reports (`"f32"`).
    const NAME: &'static str;
    /// Whether rounding happens (floats), so sums in another order may differ a little.
    const IS_FLOAT: bool;
    /// `self + other`; integers wrap around instead of panicking on overflow.
    fn plus(self, other: Self) -> Self;
    /// `|self|` (integers: `wrapping_abs`).
    fn magnitude(self) -> Self;
    /// `x` converted with `as` (test data and benchmark inputs are made from `f64`s).
    fn from_f64(x: f64) -> Self;
    /// `self` converted with `as`.
    fn to_f64(self) -> f64;
}

macro_rules! elem {
    ($t:ty, $float:expr, $plus:ident, $abs:ident) => {
        impl Elem for $t {
            const NAME: &'static str = stringify!($t);
            const IS_FLOAT: bool = $float;
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                <$t>::$plus(self, other)
            }
            #[inline(always)]
            fn magnitude(self) -> Self {
                <$t>::$abs(self)
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

/// `a + b` for floats under the name the integer types use.
trait FloatAdd {
    fn add_float(self, other: Self) -> Self;
}
impl FloatAdd for f32 {
    #[inline(always)]
    fn add_float(self, other: f32) -> f32 {
        self + other
    }
}
impl FloatAdd for f64 {
    #[inline(always)]
    fn add_float(self, other: f64) -> f64 {
        self + other
    }
}

elem!(i32, false, wrapping_add, wrapping_abs);
elem!(i64, false, wrapping_add, wrapping_abs);
elem!(f32, true, add_float, abs);
elem!(f64, true, add_float, abs);

// ANCHOR: op
/// A commutative reduction operation `a ∘ b`, applied element by element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `a + b` (MPI_SUM).
    Sum,
    /// The larger (MPI_MAX).
    Max,
    /// The smaller (MPI_MIN).
    Min,
    /// User-defined: the one with the larger magnitude; on a tie (`-3` and `3`) the
    /// larger, so that `a ∘ b == b ∘ a` holds bit for bit.
    AbsMax,
}

impl Op {
    /// `a ∘ b`.
    #[inline(always)]
    pub fn apply<T: Elem>(self, a: T, b: T) -> T {
        match self {
            Op::Sum => a.plus(b),
            Op::Max => larger(a, b),
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
                _ => larger(a, b),
            },
        }
    }

    /// The chunk reduction kernel: `acc[i] = acc[i] ∘ other[i]` for every i. The `match`
    /// sits outside the loop, so each loop body is one operation the compiler can
    /// vectorise. Panics if the lengths differ.
    pub fn reduce_into<T: Elem>(self, acc: &mut [T], other: &[T]) {
        assert_eq!(
            acc.len(),
            other.len(),
            "{self:?}: chunks of different lengths"
        );
        match self {
            Op::Sum => kernel(acc, other, |a, b| a.plus(b)),
            Op::Max => kernel(acc, other, larger),
            Op::Min => kernel(acc, other, |a, b| Op::Min.apply(a, b)),
            Op::AbsMax => kernel(acc, other, |a, b| Op::AbsMax.apply(a, b)),
        }
    }

    /// Every operation, for tests and the lab.
    pub const ALL: [Op; 4] = [Op::Sum, Op::Max, Op::Min, Op::AbsMax];
}
// ANCHOR_END: op

#[inline(always)]
fn kernel<T: Elem>(acc: &mut [T], other: &[T], f: impl Fn(T, T) -> T) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a = f(*a, *b);
    }
}

#[inline(always)]
fn larger<T: Elem>(a: T, b: T) -> T {
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
    fn every_op_is_commutative_bit_for_bit() {
        let pairs = [(-3.0f64, 3.0), (2.0, -5.0), (0.1, 0.2), (7.0, 7.0)];
        for op in Op::ALL {
            for (a, b) in pairs {
                assert_eq!(op.apply(a, b).to_bits(), op.apply(b, a).to_bits(), "{op:?}");
            }
        }
        assert_eq!(Op::AbsMax.apply(-7i32, 3), -7);
    }

    #[test]
    fn the_kernel_agrees_with_apply() {
        let mut acc = vec![1i64, -9, 4];
        Op::AbsMax.reduce_into(&mut acc, &[-2, 3, -4]);
        assert_eq!(acc, [-2, -9, 4]);
        let mut sums = vec![0.5f32; 3];
        Op::Sum.reduce_into(&mut sums, &[1.0, 2.0, 3.0]);
        assert_eq!(sums, [1.5, 2.5, 3.5]);
    }
}
