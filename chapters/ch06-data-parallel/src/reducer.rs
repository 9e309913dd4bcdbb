//! Given: the allreduce backend the gradient sync runs on, as a trait.
//!
//! [`Allreduce`] sums an f32 buffer over all ranks, in place. [`MpiAllreduce`] (the
//! default) is MPI_Allreduce; [`RingAllreduce`] is chapter 3's ring (`--allreduce ring`).
//! Another backend plugs in the same way: implement [`Allreduce`] and pass it with
//! `train::Trainer::with_reducer`. Also here: an allreduce of a whole tensor that hands a
//! GPU pointer straight to a CUDA-aware MPI.

use mpi::collective::SystemOperation;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use tch::{Device, Kind, Tensor};

// ANCHOR: allreduce_trait
/// A sum-allreduce over f32 buffers: afterwards every rank's `buf` holds the element-wise
/// sum of all ranks' buffers. Every rank must call it with the same length.
pub trait Allreduce {
    /// Sums `buf` over all ranks, in place.
    fn sum_in_place(&self, buf: &mut [f32]);
    /// The number of ranks taking part.
    fn ranks(&self) -> usize;
    /// A short name for reports ("mpi", "ring", ...).
    fn name(&self) -> &'static str;
}
// ANCHOR_END: allreduce_trait

/// MPI_Allreduce as an [`Allreduce`]. rsmpi 0.8.2 has no MPI_IN_PLACE, so the input is
/// first copied into a scratch buffer kept between calls (a memcpy: cheap next to the
/// network).
pub struct MpiAllreduce<'w> {
    world: &'w SimpleCommunicator,
    scratch: RefCell<Vec<f32>>,
}

impl<'w> MpiAllreduce<'w> {
    /// An allreduce over all ranks of `world`.
    pub fn new(world: &'w SimpleCommunicator) -> Self {
        MpiAllreduce {
            world,
            scratch: RefCell::new(Vec::new()),
        }
    }
}

impl Allreduce for MpiAllreduce<'_> {
    fn sum_in_place(&self, buf: &mut [f32]) {
        let mut send = self.scratch.borrow_mut();
        send.clear();
        send.extend_from_slice(buf);
        self.world
            .all_reduce_into(&send[..], buf, SystemOperation::sum());
    }
    fn ranks(&self) -> usize {
        self.world.size() as usize
    }
    fn name(&self) -> &'static str {
        "mpi"
    }
}

// ANCHOR: ring_backend
/// Chapter 3's ring allreduce (reduce-scatter, then allgather) as an [`Allreduce`]:
/// `--allreduce ring`. It runs your ex 3.1 and 3.2, or their solutions when the
/// workspace is built with `--features solution`.
pub struct RingAllreduce<'w> {
    world: &'w SimpleCommunicator,
}

impl<'w> RingAllreduce<'w> {
    /// A ring over all ranks of `world`.
    pub fn new(world: &'w SimpleCommunicator) -> Self {
        RingAllreduce { world }
    }
}

impl Allreduce for RingAllreduce<'_> {
    fn sum_in_place(&self, buf: &mut [f32]) {
        let sum = ch03::allreduce_ring(self.world, buf, ch03::ops::Op::Sum);
        buf.copy_from_slice(&sum);
    }
    fn ranks(&self) -> usize {
        self.world.size() as usize
    }
    fn name(&self) -> &'static str {
        "ring"
    }
}
// ANCHOR_END: ring_backend

// ANCHOR: cuda_aware
/// Sums an f32 tensor over all ranks in place, handing its device memory straight to MPI.
///
/// Only for a CUDA-aware MPI (Open MPI built with `--with-cuda`): the pointers are GPU
/// pointers and MPI moves them itself (GPUDirect). A plain MPI would crash reading device
/// memory, so the trainer calls this only with `--cuda-aware`; otherwise gradients are
/// staged through host buffers (the bridge, `flat.rs`).
pub fn allreduce_device_tensor(world: &SimpleCommunicator, t: &mut Tensor) {
    assert_eq!(
        t.kind(),
        Kind::Float,
        "allreduce_device_tensor: f32 tensors only"
    );
    let send = t.contiguous(); // same memory if already contiguous
    let recv = send.empty_like();
    if let Device::Cuda(gpu) = t.device() {
        tch::Cuda::synchronize(gpu as i64); // the kernels that wrote it are done
    }
    let n = i32::try_from(send.numel()).unwrap_or_else(|_| {
        panic!(
            "allreduce_device_tensor: {} elements exceed MPI's count limit of {} (an int): \
             split the tensor",
            send.numel(),
            i32::MAX
        )
    });
    // SAFETY: `send` and `recv` are live, contiguous f32 tensors of `n` elements each, on
    // the same device; the caller promises a CUDA-aware MPI when that device is a GPU. The
    // kernels that wrote `send` have finished (synchronised above), and both tensors
    // outlive the blocking call.
    let rc = unsafe {
        mpi::ffi::MPI_Allreduce(
            send.data_ptr(),
            recv.data_ptr(),
            n,
            f32::equivalent_datatype().as_raw(),
            SystemOperation::sum().as_raw(),
            world.as_raw(),
        )
    };
    assert_eq!(
        rc,
        mpi::ffi::MPI_SUCCESS as i32,
        "allreduce_device_tensor: MPI_Allreduce of {n} f32 failed (error code {rc})"
    );
    tch::no_grad(|| t.copy_(&recv));
}
// ANCHOR_END: cuda_aware
