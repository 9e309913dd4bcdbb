//! Chapter 6 exercise 6.1: the tensor <-> MPI buffer bridge.
//!
//! MPI moves typed buffers of host memory; a LibTorch tensor has a kind, a shape, strides
//! (it may not be contiguous) and a device (it may live on a GPU). These three functions
//! are the only place where the two meet. Check with `make check CH=06` (tests/bridge.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::elem::{BridgeError, ElementType, MpiElement};
use tch::{Device, Kind, Tensor};

// ANCHOR: element_type
/// The MPI element type of a tensor kind: Float -> F32, Double -> F64, Int -> I32,
/// Int64 -> I64; every other kind (Half, BFloat16, Bool, ...) is
/// `Err(BridgeError::Unsupported(kind))`.
pub fn element_type(kind: Kind) -> Result<ElementType, BridgeError> {
    // TODO(ex 6.1): map the four kinds, refuse the rest
    todo!("ex 6.1: bridge tensors and MPI buffers (element type, read, write)")
}
// ANCHOR_END: element_type

// ANCHOR: read_tensor
/// Copies all of `t` into `buf`, in row-major order, whatever its strides and device:
/// a GPU tensor is staged through host memory. `buf` must have `t.numel()` elements of
/// the tensor's own element type (else `TypeMismatch` / `Length`).
pub fn read_tensor<T: MpiElement>(t: &Tensor, buf: &mut [T]) -> Result<(), BridgeError> {
    // TODO(ex 6.1): check type and length, make it contiguous on the CPU, copy_data
    todo!("ex 6.1: bridge tensors and MPI buffers (element type, read, write)")
}
// ANCHOR_END: read_tensor

// ANCHOR: write_tensor
/// Copies `buf` into `t` (row-major order), keeping `t`'s shape, strides and device: a GPU
/// tensor gets the data copied host -> device. Same checks as [`read_tensor`]. Works on
/// parameters too (it writes without recording gradients).
pub fn write_tensor<T: MpiElement>(buf: &[T], t: &mut Tensor) -> Result<(), BridgeError> {
    // TODO(ex 6.1): check, view buf as a CPU tensor (from_blob), copy_ it into t
    todo!("ex 6.1: bridge tensors and MPI buffers (element type, read, write)")
}
// ANCHOR_END: write_tensor
