//! Given: f64 values between tensors and MPI buffers, and the pair of transfer functions
//! the executor uses (ex 7.2's, or a reference in the tests).
//!
//! The whole chapter trains in f64: the equivalence checks (pipeline == one process) can
//! then be tight. Tensors may live on a GPU: the copies stage through host memory.

use mpi::request::{LocalScope, Request};
use mpi::topology::SimpleCommunicator;
use tch::{Device, Kind, Tensor};

// ANCHOR: copies
/// The values of `t` (any shape, strides, device) as f64, row-major, into `buf`
/// (resized to `t.numel()`).
pub fn copy_out(t: &Tensor, buf: &mut Vec<f64>) {
    let host = t
        .detach()
        .to_device(Device::Cpu)
        .to_kind(Kind::Double)
        .contiguous();
    buf.resize(host.numel(), 0.0);
    let n = buf.len();
    host.copy_data(buf.as_mut_slice(), n);
}

/// A new f64 tensor of `shape` on `device` holding `values` (row-major).
pub fn copy_in(values: &[f64], shape: &[i64], device: Device) -> Tensor {
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

/// A non-blocking send in flight: completed with `.wait()` before the step ends.
pub type SendRequest<'a, 'b> = Request<'a, [f64], &'b LocalScope<'a>>;

// ANCHOR: transfer
/// Posts a non-blocking send of a tensor of `shape` to rank `to` of `comm` with `tag`,
/// staging its values in `buf` (see ex 7.2, `transfer::send_tensor`).
pub type SendFn = for<'a, 'b> fn(
    &SimpleCommunicator,
    usize,
    i32,
    &Tensor,
    &[i64],
    &'a mut Vec<f64>,
    &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b>, String>;

/// Receives a tensor of exactly `shape` from rank `from` of `comm` with `tag` (see ex
/// 7.2, `transfer::recv_tensor`).
pub type RecvFn = fn(&SimpleCommunicator, usize, i32, &[i64], Device) -> Result<Tensor, String>;

/// The two point-to-point functions the executor moves activations and gradients with.
#[derive(Clone, Copy)]
pub struct Transfer {
    pub send: SendFn,
    pub recv: RecvFn,
}
// ANCHOR_END: transfer
