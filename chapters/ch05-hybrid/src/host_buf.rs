//! Given code: host memory that MPI reads and a copy stream fills, pinned when the
//! tensors live on a GPU.
//!
//! A [`HostBuf`] is what MPI sees: its bytes (`&buf[..len]`, through `Deref`) are those of
//! the last copy that *landed*. A copy in flight writes elsewhere (a second buffer on
//! the CPU, a fresh pinned buffer on a GPU); [`crate::stream::CopyStream::synchronize`]
//! swaps it in. So a buffer handed to MPI before the synchronisation holds the old bytes,
//! every time.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use tch::{Device, Tensor};

/// An element type both LibTorch and MPI know: the workbook's [`toolkit::elem::Elem`]
/// (f32, f64, i32, i64) that is also a LibTorch element.
pub trait TorchElem: toolkit::elem::Elem + tch::kind::Element {}
impl<T: toolkit::elem::Elem + tch::kind::Element> TorchElem for T {}

// ANCHOR: host_buf
/// Host memory of `capacity` elements of `T`: the bytes MPI reads, and room for the copy
/// that lands next.
pub struct HostBuf<T: TorchElem> {
    /// What MPI reads: a contiguous 1-D CPU tensor (pinned on a GPU node).
    pub(crate) front: Tensor,
    /// Where the next CPU copy lands (the copy thread holds it while a copy runs).
    pub(crate) back: Option<Tensor>,
    capacity: usize,
    _elem: PhantomData<T>,
}
// ANCHOR_END: host_buf

impl<T: TorchElem> HostBuf<T> {
    // ANCHOR: pin
    /// `capacity` zeroed elements for tensors on `device`: page-locked (pinned) when
    /// `device` is a GPU, so its copies can run asynchronously by DMA.
    pub fn new(capacity: usize, device: Device) -> Self {
        let zeros = || {
            let t = Tensor::zeros([capacity as i64], (T::KIND, Device::Cpu));
            match device {
                Device::Cuda(_) => t.pin_memory(device),
                _ => t,
            }
        };
        HostBuf {
            front: zeros(),
            back: (device == Device::Cpu).then(zeros),
            capacity,
            _elem: PhantomData,
        }
    }
    // ANCHOR_END: pin

    /// How many elements it holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether the bytes MPI reads are page-locked (true on a GPU node).
    pub fn is_pinned(&self) -> bool {
        tch::Cuda::is_available() && self.front.is_pinned(Device::Cuda(0))
    }

    /// A second buffer for a copy to land in, while MPI may still read the first.
    pub(crate) fn take_back(&mut self) -> Tensor {
        self.back
            .take()
            .unwrap_or_else(|| Tensor::zeros([self.capacity as i64], (T::KIND, Device::Cpu)))
    }

    /// Makes `landed` what MPI reads; the old front becomes room for the next copy.
    pub(crate) fn land(&mut self, landed: Tensor) {
        let old = std::mem::replace(&mut self.front, landed);
        if old.numel() == self.capacity && old.device() == Device::Cpu && self.back.is_none() {
            self.back = Some(old);
        }
    }
}

impl<T: TorchElem> Deref for HostBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        let n = self.front.numel();
        if n == 0 {
            return &[];
        }
        // SAFETY: `front` is a contiguous CPU tensor of `n` elements of `T` (checked kind),
        // owned by `self` and not written while borrowed.
        unsafe { std::slice::from_raw_parts(self.front.data_ptr() as *const T, n) }
    }
}

impl<T: TorchElem> DerefMut for HostBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let n = self.front.numel();
        if n == 0 {
            return &mut [];
        }
        // SAFETY: as in `deref`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.front.data_ptr() as *mut T, n) }
    }
}
