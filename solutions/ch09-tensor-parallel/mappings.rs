//! Chapter 9 exercise 9.2: Megatron's f and g, forward and backward (solution).

use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: f
/// f's forward: the identity.
pub fn f_forward(x: &Tensor) -> Tensor {
    x.shallow_clone()
}

/// f's backward: every rank's contribution to the input's gradient, summed.
pub fn f_backward(tp: &Tp, dx: &Tensor) -> Tensor {
    tp.sum(dx)
}
// ANCHOR_END: f

// ANCHOR: g
/// g's forward: the partial sums of the row-parallel layer, summed.
pub fn g_forward(tp: &Tp, partial: &Tensor) -> Tensor {
    tp.sum(partial)
}

/// g's backward: the identity (every rank needs the whole output's gradient, and has it).
pub fn g_backward(dz: &Tensor) -> Tensor {
    dz.shallow_clone()
}
// ANCHOR_END: g
