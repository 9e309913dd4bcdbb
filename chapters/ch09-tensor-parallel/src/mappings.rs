//! Chapter 9 exercise 9.2: Megatron's f and g, forward and backward.
//!
//! f stands before a column-parallel layer: every rank needs the whole input, which it
//! already has, so f's forward is the identity; but the input feeds every rank's columns,
//! so its gradient is the sum of every rank's contribution: f's backward is an allreduce.
//! g stands after a row-parallel layer and is f's mirror: an allreduce forward (the
//! partial sums), the identity backward. The [`crate::tape::Tape`] puts each at a cut of
//! the graph. Check with `make check CH=09` (tests/mappings.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: f
/// f's forward: the input as it is (a new handle to the same values).
pub fn f_forward(x: &Tensor) -> Tensor {
    // TODO(ex 9.2): the identity
    todo!("ex 9.2: f and g, forward and backward")
}

/// f's backward: this rank's gradient of f's output, summed over the group.
pub fn f_backward(tp: &Tp, dx: &Tensor) -> Tensor {
    // TODO(ex 9.2): the sum over the ranks of the group
    todo!("ex 9.2: f and g, forward and backward")
}
// ANCHOR_END: f

// ANCHOR: g
/// g's forward: this rank's partial result, summed over the group.
pub fn g_forward(tp: &Tp, partial: &Tensor) -> Tensor {
    // TODO(ex 9.2): the sum over the ranks of the group
    todo!("ex 9.2: f and g, forward and backward")
}

/// g's backward: the gradient of g's output as it is.
pub fn g_backward(dz: &Tensor) -> Tensor {
    // TODO(ex 9.2): the identity
    todo!("ex 9.2: f and g, forward and backward")
}
// ANCHOR_END: g
