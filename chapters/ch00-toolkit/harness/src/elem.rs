//! The element types of the workbook: `i32`, `i64`, `f32` and `f64`.
//!
//! Every chapter that moves or reduces numbers is generic over [`Elem`]: the tests run
//! each exercise on all four types, integers (exact in any order) and floats (rounded, so
//! a sum in another order may differ in the last bits). MPI moves them as its own
//! datatypes (`MPI_INT32_T`, `MPI_INT64_T`, `MPI_FLOAT`, `MPI_DOUBLE`): hence the
//! [`Equivalence`] bound.

use mpi::datatype::Equivalence;
use std::fmt::Debug;
use std::ops::{Add, Mul};

/// Which of the four element types a type is: a value to compare and to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    /// `f32`, `MPI_FLOAT`.
    F32,
    /// `f64`, `MPI_DOUBLE`.
    F64,
    /// `i32`, `MPI_INT32_T`.
    I32,
    /// `i64`, `MPI_INT64_T`.
    I64,
}

/// An element type of the workbook: `i32`, `i64`, `f32` or `f64`.
pub trait Elem:
    Equivalence + Copy + Debug + PartialEq + PartialOrd + Default + Send + Sync + 'static
{
    /// The type's name, for reports (`"f64"`).
    const NAME: &'static str;
    /// Which of the four it is.
    const TYPE: ElementType;
    /// Whether rounding happens (floats), so sums in another order may differ a little.
    const IS_FLOAT: bool;
    /// Machine epsilon, the gap between 1 and the next number; 0 for integers, whose
    /// (wrapping) sums are the same in any order.
    const EPSILON: f64;
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

/// `impl Elem` for one type: its name, whether it rounds, its epsilon, and the methods
/// for `plus`, `times` and `magnitude` (integers: the wrapping ones).
macro_rules! elem {
    ($t:ty, $type:ident, $float:expr, $eps:expr, $plus:ident, $times:ident, $abs:ident) => {
        impl Elem for $t {
            const NAME: &'static str = stringify!($t);
            const TYPE: ElementType = ElementType::$type;
            const IS_FLOAT: bool = $float;
            const EPSILON: f64 = $eps;
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                <$t>::$plus(self, other)
            }
            #[inline(always)]
            fn times(self, other: Self) -> Self {
                <$t>::$times(self, other)
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

elem!(
    i32,
    I32,
    false,
    0.0,
    wrapping_add,
    wrapping_mul,
    wrapping_abs
);
elem!(
    i64,
    I64,
    false,
    0.0,
    wrapping_add,
    wrapping_mul,
    wrapping_abs
);
elem!(f32, F32, true, f32::EPSILON as f64, add, mul, abs);
elem!(f64, F64, true, f64::EPSILON, add, mul, abs);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_floats_round() {
        assert_eq!(i32::MAX.plus(1), i32::MIN);
        assert_eq!(i64::MIN.magnitude(), i64::MIN);
        assert_eq!(3i32.times(-4), -12);
        assert_eq!(0.1f32.plus(0.2).to_f64(), f64::from(0.1f32 + 0.2f32));
        assert_eq!(<f32 as Elem>::EPSILON, f64::from(f32::EPSILON));
        assert_eq!(<i64 as Elem>::EPSILON, 0.0);
        assert_eq!(
            (f64::NAME, f64::TYPE, i32::IS_FLOAT),
            ("f64", ElementType::F64, false)
        );
    }
}
