//! Given: pinned, non-blocking staging of device tensors between the GPU and the `Vec`
//! MPI reads ([`crate::wire::copy_out`] and [`crate::wire::copy_in`] call it for a tensor on
//! a GPU; a CPU tensor never comes here).
//!
//! Out: the device-to-host copy is issued non-blocking (`to_device_(Cpu, .., non_blocking:
//! true, ..)`, as chapter 5's staging does), so it lands in page-locked (pinned) memory
//! from LibTorch's caching host allocator, which keeps freed blocks and hands them back for
//! the next copy of that size; the GPU's copy engine moves the bytes by DMA, and a
//! synchronisation of the GPU completes the copy before the bytes go on into the `Vec`
//! MPI reads. In: the received values are copied into a pinned buffer of this module,
//! allocated once per element type and size and reused; the host-to-device copy is issued
//! non-blocking from it, and the GPU is synchronised before the buffer is used again
//! (before `copy_in` returns). Between a GPU and pageable memory the CUDA driver stages
//! every copy through a pinned bounce buffer of its own, synchronously.
//!
//! Tested on a GPU by the GPU kit (`cargo test -p ch07-pipeline --features solution --test
//! device_wire`); on a CPU that test checks the path is the ordinary one.

use crate::wire::WireElem;
use std::cell::RefCell;
use std::collections::HashMap;
use tch::{Device, Kind, Tensor};

thread_local! {
    /// This thread's pinned buffers for host-to-device copies, by element kind and number
    /// of elements.
    static PINNED: RefCell<HashMap<(i32, usize), Tensor>> = RefCell::new(HashMap::new());
}

fn kind_key(kind: Kind) -> i32 {
    match kind {
        Kind::Float => 0,
        Kind::Double => 1,
        _ => 2,
    }
}

/// The pinned host buffer of `n` elements of `kind` that copies to `gpu` start from:
/// allocated on first use, the same buffer (a shallow clone) every time after.
pub fn buffer(kind: Kind, n: usize, gpu: Device) -> Tensor {
    PINNED.with(|cache| {
        cache
            .borrow_mut()
            .entry((kind_key(kind), n))
            .or_insert_with(|| Tensor::empty([n as i64], (kind, Device::Cpu)).pin_memory(gpu))
            .shallow_clone()
    })
}

/// How many pinned buffers this thread holds (one per kind and size copied in so far).
pub fn buffers_held() -> usize {
    PINNED.with(|cache| cache.borrow().len())
}

fn gpu_index(device: Device) -> i64 {
    match device {
        Device::Cuda(i) => i as i64,
        _ => 0,
    }
}

/// `t` (on a GPU) as a contiguous CPU tensor of `kind` in pinned memory, landed: the copy
/// is issued non-blocking, then the GPU is synchronised.
pub fn stage_out(t: &Tensor, kind: Kind) -> Tensor {
    let src = t.detach().to_kind(kind).contiguous(); // on the GPU
    let host = src.to_device_(Device::Cpu, kind, true, false); // pinned, not waited for
    tch::Cuda::synchronize(gpu_index(src.device())); // landed before anyone reads it
    host
}

/// `t` (on a GPU) as `E`s, row-major, into `buf`: through pinned memory.
pub fn copy_out<E: WireElem>(t: &Tensor, buf: &mut Vec<E>) {
    let host = stage_out(t, E::KIND);
    let n = host.numel();
    buf.resize(n, E::default());
    host.copy_data(buf.as_mut_slice(), n);
}

/// A new tensor of `shape` on `device` (a GPU) holding `values`: through this size's
/// pinned buffer.
pub fn copy_in<E: WireElem>(values: &[E], shape: &[i64], device: Device) -> Tensor {
    let host = buffer(E::KIND, values.len(), device);
    if !values.is_empty() {
        // SAFETY: `host` is a contiguous CPU tensor of exactly `values.len()` elements of
        // `E`'s kind, owned by this thread's cache and not in use (the last copy from it
        // was synchronised).
        let dst =
            unsafe { std::slice::from_raw_parts_mut(host.data_ptr() as *mut E, values.len()) };
        dst.copy_from_slice(values);
    }
    let out = host.to_device_(device, E::KIND, true, true); // non-blocking, from pinned memory
    tch::Cuda::synchronize(gpu_index(device)); // `host` may be written again
    out.view(shape)
}
