//! Given: pinned, non-blocking staging of device tensors between the GPU and the `Vec`
//! MPI reads ([`crate::wire::copy_out`] and [`crate::wire::copy_in`] call it for a tensor on
//! a GPU; a CPU tensor never comes here).
//!
//! Out: the device-to-host copy lands in page-locked (pinned) host memory, allocated once
//! per element type, size and direction and reused: it is issued non-blocking (the GPU's
//! copy engine moves the bytes by DMA) and completed by a synchronisation of the GPU
//! before the bytes are copied on into the `Vec` MPI reads. In: the received values are
//! copied into a pinned buffer, the host-to-device copy is issued non-blocking from it,
//! and the GPU is synchronised before the buffer is used again (before `copy_in` returns).
//! Between a GPU and pageable memory the CUDA driver stages every copy through a pinned
//! bounce buffer of its own, synchronously.
//!
//! Tested on a GPU by the GPU kit (`cargo test -p ch07-pipeline --features solution --test
//! device_wire`); on a CPU that test checks the path is the ordinary one.

use crate::wire::WireElem;
use std::cell::RefCell;
use std::collections::HashMap;
use tch::{Device, Kind, Tensor};

/// Which way a pinned buffer serves: device to host (out) or host to device (in).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Way {
    Out,
    In,
}

thread_local! {
    /// This thread's pinned buffers, by way, element kind and number of elements.
    static PINNED: RefCell<HashMap<(Way, i32, usize), Tensor>> = RefCell::new(HashMap::new());
}

fn kind_key(kind: Kind) -> i32 {
    match kind {
        Kind::Float => 0,
        Kind::Double => 1,
        _ => 2,
    }
}

/// The pinned host buffer of `n` elements of `kind` serving `way` for tensors on `gpu`:
/// allocated on first use, the same buffer (a shallow clone) every time after.
pub fn buffer(way: Way, kind: Kind, n: usize, gpu: Device) -> Tensor {
    PINNED.with(|cache| {
        cache
            .borrow_mut()
            .entry((way, kind_key(kind), n))
            .or_insert_with(|| Tensor::empty([n as i64], (kind, Device::Cpu)).pin_memory(gpu))
            .shallow_clone()
    })
}

/// How many pinned buffers this thread holds (one per way, kind and size used so far).
pub fn buffers_held() -> usize {
    PINNED.with(|cache| cache.borrow().len())
}

fn gpu_index(device: Device) -> i64 {
    match device {
        Device::Cuda(i) => i as i64,
        _ => 0,
    }
}

/// `t` (on a GPU) as `E`s, row-major, into `buf`: through this size's pinned buffer.
pub fn copy_out<E: WireElem>(t: &Tensor, buf: &mut Vec<E>) {
    let src = t.detach().to_kind(E::KIND).contiguous(); // on the GPU
    let n = src.numel();
    let host = buffer(Way::Out, E::KIND, n, src.device());
    let _ = src.view([n as i64]).internal_to_copy_out(&host, true); // issued, not waited
    tch::Cuda::synchronize(gpu_index(src.device())); // landed before anyone reads it
    buf.resize(n, E::default());
    host.copy_data(buf.as_mut_slice(), n);
}

/// A new tensor of `shape` on `device` (a GPU) holding `values`: through this size's
/// pinned buffer.
pub fn copy_in<E: WireElem>(values: &[E], shape: &[i64], device: Device) -> Tensor {
    let host = buffer(Way::In, E::KIND, values.len(), device);
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
