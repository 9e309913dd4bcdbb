//! Chapter 2: collectives built from point-to-point, checked against MPI's own.
//!
//! Run the lab with `make run CH=02` and your exercises with `make check CH=02`.
//!
//! - [`ops`] (given): the element types ([`ops::Elem`]) and reduction operations
//!   ([`ops::Op`]) the reductions work with, including two user-defined ones.
//! - [`reference`] (given): MPI's own collectives for the same operations; the tests and
//!   the lab compare your code with them.
//! - The exercises, one file per family of collectives:
//!   [`broadcast`] (ex 2.1, 2.2), [`reduce`] (ex 2.3, 2.9), [`scatter_gather`] (ex 2.4,
//!   2.5), [`exchange`] (ex 2.6, 2.7), [`barrier`] (ex 2.8), [`bruck`] (ex 2.10).
//!
//! Every exercise uses point-to-point calls only (send, receive, send-receive).

pub mod ops;
pub mod reference;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/broadcast.rs"
)]
pub mod broadcast;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/reduce.rs"
)]
pub mod reduce;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/scatter_gather.rs"
)]
pub mod scatter_gather;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/exchange.rs"
)]
pub mod exchange;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/barrier.rs"
)]
pub mod barrier;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch02-collectives/bruck.rs"
)]
pub mod bruck;

/// Where each rank's block starts when blocks of `counts[r]` items are laid out in rank
/// order: `[0, c0, c0 + c1, ...]` (the displacements of a varcount collective).
pub use toolkit::split::displacements;
