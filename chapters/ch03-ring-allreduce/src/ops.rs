//! Given code: the element types and the reduction operations of this chapter.
//!
//! A ring allreduce combines the chunks in a different order on every rank, so it needs a
//! commutative (and associative) operation. The chapter uses the four of [`OPS`]: three
//! predefined ones (sum, max, min) and one user-defined one, [`Op::AbsMax`] (the value
//! of larger magnitude), which MPI only knows through a user-defined `MPI_Op`.
//!
//! [`Elem`] and [`Op`] come from the toolkit, shared with the other chapters. Nothing to
//! run here. [`Op::reduce_into`] is the chunk reduction kernel every algorithm of the
//! chapter calls (`acc[i] = acc[i] ∘ other[i]`); `benches/benches/ring_allreduce.rs`
//! times it.

pub use toolkit::elem::Elem;
pub use toolkit::ops::Op;

/// The operations of this chapter, for tests and the lab: the commutative ones whose
/// results the checks can compare (exactly, or float sums within the summation bound).
/// Chapter 2's `Op::First` is not commutative, and a product of the checks' values would
/// round differently in another order.
pub const OPS: [Op; 4] = [Op::Sum, Op::Max, Op::Min, Op::AbsMax];
