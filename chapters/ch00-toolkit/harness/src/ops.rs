//! The reduction operations of the workbook, and MPI's operation for each.
//!
//! A reduction combines one value per rank with a binary operation `∘`. MPI requires `∘`
//! to be associative; it may assume commutativity only when told so. [`Op`] holds the four
//! predefined operations (sum, product, max, min) and two user-defined ones:
//! [`Op::AbsMax`] (commutative) and [`Op::First`] (not commutative: `a ∘ b = a`), which
//! catches code that combines values out of rank order.
//!
//! [`Op::reduce_into`] and its mirror [`Op::fold_left_into`] apply an operation to whole
//! slices (the kernel every hand-written reduction calls); [`Op::to_mpi`] is MPI's own
//! operation for it, to hand to any rsmpi reduction: `&op.to_mpi::<T>()`.

use crate::elem::Elem;
use mpi::collective::{Operation, SystemOperation, UserOperation};
use mpi::datatype::{DynBuffer, DynBufferMut};
use mpi::raw::AsRaw;
use std::cmp::Ordering;

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
    /// User-defined, commutative: the one with the larger magnitude; on a tie (`-3` and
    /// `3`) the larger, so that `a ∘ b == b ∘ a` holds bit for bit.
    AbsMax,
    /// User-defined, NOT commutative: `a ∘ b = a`, the left operand. Reduced in rank
    /// order, the result is rank 0's value; any other order gives another rank's value.
    First,
}

impl Op {
    /// `a ∘ b`. The order matters for [`Op::First`]: `a` is the value of the lower ranks.
    #[inline(always)]
    pub fn apply<T: Elem>(self, a: T, b: T) -> T {
        match self {
            Op::Sum => a.plus(b),
            Op::Product => a.times(b),
            Op::Max => larger(a, b),
            Op::Min => smaller(a, b),
            Op::AbsMax => abs_max(a, b),
            Op::First => a,
        }
    }

    /// Whether `a ∘ b == b ∘ a` for all a, b (false only for [`Op::First`]).
    pub fn is_commutative(self) -> bool {
        self != Op::First
    }

    /// Every operation, for tests and labs.
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

impl Op {
    /// The reduction kernel: `acc[i] = acc[i] ∘ other[i]` for every i, where `acc` holds
    /// the values of LOWER ranks and `other` those of higher ranks. The `match` sits
    /// outside the loop, so each loop body is one operation the compiler can vectorise.
    /// Panics if the lengths differ.
    pub fn reduce_into<T: Elem>(self, acc: &mut [T], other: &[T]) {
        self.combine(acc, other, true);
    }

    /// `left[i] = left[i] ∘ right[i]` for every i: combine `right` (values of HIGHER
    /// ranks) into `left` (values of lower ranks). The same as [`Op::reduce_into`], named
    /// for the side it keeps. Panics if the lengths differ.
    pub fn fold_right_into<T: Elem>(self, left: &mut [T], right: &[T]) {
        self.combine(left, right, true);
    }

    /// `right[i] = left[i] ∘ right[i]` for every i: combine `left` (values of LOWER
    /// ranks) into `right` (values of higher ranks). Panics if the lengths differ.
    pub fn fold_left_into<T: Elem>(self, left: &[T], right: &mut [T]) {
        self.combine(right, left, false);
    }

    /// `out[i] = out[i] ∘ other[i]` when `out_on_left`, else `other[i] ∘ out[i]`.
    #[inline(always)]
    fn combine<T: Elem>(self, out: &mut [T], other: &[T], out_on_left: bool) {
        assert_eq!(
            out.len(),
            other.len(),
            "{self:?}: operands of different lengths"
        );
        macro_rules! each {
            ($f:expr) => {
                if out_on_left {
                    zip_with(out, other, $f)
                } else {
                    zip_with(out, other, |o, x| ($f)(x, o))
                }
            };
        }
        match self {
            Op::Sum => each!(|a: T, b: T| a.plus(b)),
            Op::Product => each!(|a: T, b: T| a.times(b)),
            Op::Max => each!(larger::<T>),
            Op::Min => each!(smaller::<T>),
            Op::AbsMax => each!(abs_max::<T>),
            Op::First => each!(|a: T, _: T| a),
        }
    }
}

#[inline(always)]
fn zip_with<T: Elem>(out: &mut [T], other: &[T], f: impl Fn(T, T) -> T) {
    for (o, x) in out.iter_mut().zip(other) {
        *o = f(*o, *x);
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

#[inline(always)]
fn smaller<T: Elem>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

#[inline(always)]
fn abs_max<T: Elem>(a: T, b: T) -> T {
    match a.magnitude().partial_cmp(&b.magnitude()) {
        Some(Ordering::Less) => b,
        Some(Ordering::Greater) => a,
        _ => larger(a, b),
    }
}

/// MPI's own operation for an [`Op`] on one element type: predefined, or user-defined.
/// Hand `&op.to_mpi::<T>()` to an rsmpi reduction (`all_reduce_into`, `reduce_into_root`,
/// `scan_into`, ...); a user-defined operation is freed when this value is dropped.
pub enum MpiOp {
    /// MPI_SUM, MPI_PROD, MPI_MAX or MPI_MIN.
    Predefined(SystemOperation),
    /// An `MPI_Op` created from [`Op::apply`] (`MPI_Op_create`).
    UserDefined(UserOperation<'static>),
}

impl Op {
    /// The predefined MPI operation for sum, product, max and min; `None` for the
    /// user-defined ones (AbsMax, First).
    pub fn predefined(self) -> Option<SystemOperation> {
        match self {
            Op::Sum => Some(SystemOperation::sum()),
            Op::Product => Some(SystemOperation::product()),
            Op::Max => Some(SystemOperation::max()),
            Op::Min => Some(SystemOperation::min()),
            Op::AbsMax | Op::First => None,
        }
    }

    /// MPI's operation for `self` on elements of `T`. A user-defined one is declared
    /// commutative only if `self` is. MPI calls it with `(invec, inoutvec)` and wants
    /// `inoutvec[i] = invec[i] ∘ inoutvec[i]`: `invec` holds the values of LOWER ranks.
    pub fn to_mpi<T: Elem>(self) -> MpiOp {
        if let Some(op) = self.predefined() {
            return MpiOp::Predefined(op);
        }
        let apply = move |lower: DynBuffer, higher: DynBufferMut| {
            let wrong = "user-defined operation: wrong element type";
            let lower = lower.downcast::<T>().expect(wrong);
            let higher = higher.downcast::<T>().expect(wrong);
            self.fold_left_into(lower, higher);
        };
        MpiOp::UserDefined(UserOperation::new(self.is_commutative(), apply))
    }
}

unsafe impl AsRaw for MpiOp {
    type Raw = mpi::ffi::MPI_Op;
    fn as_raw(&self) -> Self::Raw {
        match self {
            MpiOp::Predefined(op) => op.as_raw(),
            MpiOp::UserDefined(op) => op.as_raw(),
        }
    }
}

impl Operation for MpiOp {}

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
    fn every_commutative_op_is_commutative_bit_for_bit() {
        let pairs = [(-3.0f64, 3.0), (2.0, -5.0), (0.1, 0.2), (7.0, 7.0)];
        for op in Op::ALL.into_iter().filter(|op| op.is_commutative()) {
            for (a, b) in pairs {
                assert_eq!(op.apply(a, b).to_bits(), op.apply(b, a).to_bits(), "{op:?}");
            }
        }
        assert_eq!(Op::AbsMax.apply(0.0, -0.0), Op::AbsMax.apply(-0.0, 0.0));
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

    #[test]
    fn the_kernel_agrees_with_apply() {
        let (xs, ys) = ([1i64, -9, 4, 0], [-2i64, 3, -4, 5]);
        for op in Op::ALL {
            let mut acc = xs;
            op.reduce_into(&mut acc, &ys);
            let mut high = ys;
            op.fold_left_into(&xs, &mut high);
            for i in 0..xs.len() {
                let want = op.apply(xs[i], ys[i]);
                assert_eq!((acc[i], high[i]), (want, want), "{op:?}");
            }
        }
        let mut sums = vec![0.5f32; 3];
        Op::Sum.reduce_into(&mut sums, &[1.0, 2.0, 3.0]);
        assert_eq!(sums, [1.5, 2.5, 3.5]);
    }
}
