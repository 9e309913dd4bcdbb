//! Given code: the element types and reduction operations of this chapter.
//!
//! A reduction combines one value per rank with a binary operation `∘`. MPI requires `∘`
//! to be associative; it may assume commutativity only when told so. [`Op`] holds the four
//! predefined operations the tests use (sum, product, max, min) and two user-defined ones:
//! [`Op::AbsMax`] (commutative) and [`Op::First`] (not commutative: `a ∘ b = a`), which
//! catches code that combines values out of rank order.
//!
//! Both live in the toolkit, shared with the other chapters: [`Elem`] is one of i32, i64,
//! f32, f64; [`Op::fold_right_into`] and [`Op::fold_left_into`] combine a buffer from
//! higher or from lower ranks into yours; [`Op::to_mpi`] is MPI's own operation for each,
//! which `reference` hands to rsmpi. Nothing to run here.

pub use toolkit::elem::Elem;
pub use toolkit::ops::Op;
