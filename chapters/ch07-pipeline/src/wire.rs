//! Given: values between tensors and MPI buffers, in the model's element type (f32 or
//! f64, [`WireElem`]), and the pair of transfer functions the executor uses (ex 7.2's, or a
//! reference in the tests).
//!
//! The trainer and the benchmark run in f32 by default (`--dtype f32`, what users train
//! in); the equivalence checks (pipeline == one process) run in f64, so they can be tight.
//! A transfer moves the model's element type: f32 halves the bytes of every message.
//! Tensors may live on a GPU: the copies stage through host memory, pinned and
//! non-blocking ([`crate::pinned`]); a CPU tensor takes the ordinary path.

use mpi::datatype::Equivalence;
use mpi::request::{LocalScope, Request};
use mpi::topology::SimpleCommunicator;
use tch::{Device, Kind, Tensor};

/// The model's element type (`--dtype`): f32 (LibTorch's `Kind::Float`) or f64
/// (`Kind::Double`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    F64,
}

/// `--dtype`'s values.
pub const DTYPES: &[(&str, Dtype)] = &[("f32", Dtype::F32), ("f64", Dtype::F64)];

impl Dtype {
    /// LibTorch's kind for this element type.
    pub fn kind(self) -> Kind {
        match self {
            Dtype::F32 => Kind::Float,
            Dtype::F64 => Kind::Double,
        }
    }

    /// `f32` or `f64`, as the flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
        }
    }
}

/// An element type that crosses MPI and lives in LibTorch tensors: f32 or f64.
/// `E::KIND` is its LibTorch kind, `E::DTYPE` its `--dtype`.
pub trait WireElem: Equivalence + tch::kind::Element + Copy + Default + Send + 'static {
    const DTYPE: Dtype;
}

impl WireElem for f32 {
    const DTYPE: Dtype = Dtype::F32;
}

impl WireElem for f64 {
    const DTYPE: Dtype = Dtype::F64;
}

/// `Ok` when `E` is `dtype`'s element type; else why a transfer of `E`s cannot serve it.
pub fn moves<E: WireElem>(dtype: Dtype) -> Result<(), String> {
    match dtype == E::DTYPE {
        true => Ok(()),
        false => Err(format!(
            "--dtype {}: the transfer moves {:?} elements",
            dtype.name(),
            E::KIND
        )),
    }
}

// ANCHOR: copies
/// The values of `t` (any shape, strides, device) as `E` (f32 or f64), row-major, into
/// `buf` (resized to `t.numel()`). A GPU tensor's copy lands in a pinned buffer first.
pub fn copy_out<E: WireElem>(t: &Tensor, buf: &mut Vec<E>) {
    if t.device().is_cuda() {
        return crate::pinned::copy_out(t, buf);
    }
    let host = t
        .detach()
        .to_device(Device::Cpu)
        .to_kind(E::KIND)
        .contiguous();
    buf.resize(host.numel(), E::default());
    let n = buf.len();
    host.copy_data(buf.as_mut_slice(), n);
}

/// A new tensor of `E`'s kind and `shape` on `device` holding `values` (row-major); to a
/// GPU through a pinned buffer.
pub fn copy_in<E: WireElem>(values: &[E], shape: &[i64], device: Device) -> Tensor {
    if device.is_cuda() {
        return crate::pinned::copy_in(values, shape, device);
    }
    Tensor::from_slice(values).view(shape).to_device(device)
}
// ANCHOR_END: copies

/// Number of elements of a tensor of `shape`.
pub fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>().max(0) as usize
}

/// `4x16`: a shape as people write it.
pub fn shape_text(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    dims.join("x")
}

/// A non-blocking send of `E`s in flight: completed with `.wait()` before the step ends.
pub type SendRequest<'a, 'b, E = f64> = Request<'a, [E], &'b LocalScope<'a>>;

// ANCHOR: transfer
/// Posts a non-blocking send of a tensor of `shape` to rank `to` of `comm` with `tag`,
/// staging its values as `E`s in `buf` (see ex 7.2, `transfer::send_tensor`).
pub type SendFn<E = f64> = for<'a, 'b> fn(
    &SimpleCommunicator,
    usize,
    i32,
    &Tensor,
    &[i64],
    &'a mut Vec<E>,
    &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b, E>, String>;

/// Receives a tensor of exactly `shape` from rank `from` of `comm` with `tag` (see ex
/// 7.2, `transfer::recv_tensor::<E>`), as a tensor of `E`'s kind.
pub type RecvFn = fn(&SimpleCommunicator, usize, i32, &[i64], Device) -> Result<Tensor, String>;

/// The two point-to-point functions the executor moves activations and gradients with, as
/// `E`s on the wire (the model's element type).
pub struct Transfer<E: WireElem = f64> {
    pub send: SendFn<E>,
    pub recv: RecvFn,
}

impl<E: WireElem> Clone for Transfer<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: WireElem> Copy for Transfer<E> {}
// ANCHOR_END: transfer
