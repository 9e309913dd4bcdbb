//! Chapter 6 exercise 6.1: the tensor <-> MPI buffer bridge (solution).

use crate::elem::{BridgeError, ElementType, MpiElement};
use tch::{Device, Kind, Tensor};

// ANCHOR: element_type
/// The MPI element type of a tensor kind; 16-bit floats and the rest are refused.
pub fn element_type(kind: Kind) -> Result<ElementType, BridgeError> {
    match kind {
        Kind::Float => Ok(ElementType::F32),
        Kind::Double => Ok(ElementType::F64),
        Kind::Int => Ok(ElementType::I32),
        Kind::Int64 => Ok(ElementType::I64),
        other => Err(BridgeError::Unsupported(other)),
    }
}
// ANCHOR_END: element_type

/// The checks both directions make: a kind we move, the buffer's type, its length.
fn check<T: MpiElement>(t: &Tensor, len: usize) -> Result<(), BridgeError> {
    let tensor = element_type(t.kind())?;
    if tensor != T::TYPE {
        return Err(BridgeError::TypeMismatch {
            tensor,
            buffer: T::TYPE,
        });
    }
    if t.numel() != len {
        return Err(BridgeError::Length {
            tensor: t.numel(),
            buffer: len,
        });
    }
    Ok(())
}

// ANCHOR: read_tensor
/// Copies all of `t` into `buf`, staging a GPU tensor through host memory.
pub fn read_tensor<T: MpiElement>(t: &Tensor, buf: &mut [T]) -> Result<(), BridgeError> {
    check::<T>(t, buf.len())?;
    // Staging: one device -> host copy (a no-op on the CPU), then row-major order (a no-op
    // when already contiguous). copy_data is then a memcpy.
    let host = t.to_device(Device::Cpu).contiguous();
    host.copy_data(buf, buf.len());
    Ok(())
}
// ANCHOR_END: read_tensor

// ANCHOR: write_tensor
/// Copies `buf` into `t`, host -> device for a GPU tensor, keeping `t`'s strides.
pub fn write_tensor<T: MpiElement>(buf: &[T], t: &mut Tensor) -> Result<(), BridgeError> {
    check::<T>(t, buf.len())?;
    // A CPU view of our buffer with t's shape; copy_ handles strides and the device.
    // SAFETY: `check` made sure `buf` holds exactly `t.numel()` elements of kind `T::KIND`,
    // contiguous; the view does not own that memory and is used and dropped at once, while
    // `buf` is borrowed.
    let view = unsafe {
        Tensor::from_blob(
            buf.as_ptr() as *const u8,
            &t.size(),
            &[],
            T::KIND,
            Device::Cpu,
        )
    };
    tch::no_grad(|| t.copy_(&view));
    Ok(())
}
// ANCHOR_END: write_tensor
