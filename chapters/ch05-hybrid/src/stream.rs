//! Given code: the copies between a tensor's memory and the host buffers MPI reads.
//!
//! On a GPU, a copy from device to host is *started* on a CUDA stream and *lands* later;
//! the host learns that it landed only by synchronising. MPI knows nothing of streams: a
//! buffer handed to MPI before the stream was synchronised may still hold old bytes.
//!
//! [`CopyStream`] really copies while the caller goes on (MPI included), and gives the
//! rule at its strictest: a copy started with [`CopyStream::start_to_host`] lands, that
//! is becomes what the [`HostBuf`] shows, only at [`CopyStream::synchronize`]. So a
//! missing synchronisation gives a wrong answer on every run, here and in CI, instead of
//! now and then on a GPU.
//! - On the CPU, a copy thread ([`crate::copier`]) copies into the buffer's second half
//!   while the rank thread runs MPI; `synchronize` waits for it and swaps the halves.
//! - On a GPU, the copy is issued non-blocking (`to_device_(Cpu, .., non_blocking: true,
//!   ..)`: LibTorch gives it a page-locked (pinned) landing buffer from its pinned-memory
//!   cache, and the GPU's copy engine moves the bytes by DMA); `synchronize` waits for
//!   the device and swaps the landed buffer in.
//!
//! The copy back ([`to_device`]) is synchronous, as the chapter's code uses it.
//!
//! Run its checks: `cargo test -p ch05-hybrid --test main staging::`.

use crate::copier::{Copier, Job};
pub use crate::host_buf::{HostBuf, TorchElem};
use crate::staging_trace;
use std::time::Instant;
use tch::{Device, Kind, Tensor};

/// One copy in flight: which buffer it lands in, and (on a GPU) the landing tensor and
/// when it was issued.
struct Pending<T: TorchElem> {
    dst: *mut HostBuf<T>,
    gpu_landing: Option<(Tensor, Instant)>,
}

// ANCHOR: stream
/// A queue of device-to-host copies that run while the caller goes on, and land when
/// the stream is synchronised.
pub struct CopyStream<T: TorchElem> {
    pending: Vec<Pending<T>>,
    /// The GPU whose work [`synchronize`](Self::synchronize) waits for, if any.
    gpu: Option<usize>,
    /// The copy thread (CPU tensors only; started at the first copy).
    copier: Option<Copier>,
}

impl<T: TorchElem> CopyStream<T> {
    /// A stream for tensors on `device`.
    pub fn new(device: Device) -> Self {
        let gpu = match device {
            Device::Cuda(i) => Some(i),
            _ => None,
        };
        CopyStream {
            pending: vec![],
            gpu,
            copier: None,
        }
    }

    /// Starts copying `len` elements of the 1-D tensor `t`, from element `offset`, into
    /// `dst`. Returns at once; `dst[..len]` holds them only after [`synchronize`].
    ///
    /// # Safety
    /// As with `cudaMemcpyAsync`: `dst` must stay alive and in place, and nobody may
    /// write `t[offset..offset + len]` or use `dst` for another copy, until the next
    /// [`synchronize`] returns.
    ///
    /// [`synchronize`]: Self::synchronize
    pub unsafe fn start_to_host(
        &mut self,
        t: &Tensor,
        offset: usize,
        dst: &mut HostBuf<T>,
        len: usize,
    ) {
        check_kind::<T>(t);
        assert!(
            len <= dst.capacity(),
            "a copy of {len} elements into a buffer of {}",
            dst.capacity()
        );
        let src = t.narrow(0, offset as i64, len as i64);
        let gpu_landing = match self.gpu {
            Some(_) => Some((
                src.to_device_(Device::Cpu, T::KIND, true, false),
                Instant::now(),
            )),
            None => {
                let into = dst.take_back();
                self.copier
                    .get_or_insert_with(Copier::spawn)
                    .submit(Job { src, into });
                None
            }
        };
        self.pending.push(Pending { dst, gpu_landing });
    }

    /// Waits until every copy started so far has landed (`cudaStreamSynchronize`).
    pub fn synchronize(&mut self) {
        let began = Instant::now();
        if let Some(gpu) = self.gpu {
            tch::Cuda::synchronize(gpu as i64);
        }
        let landed = Instant::now();
        for p in self.pending.drain(..) {
            // SAFETY: the caller of `start_to_host` promised that `dst` is alive and in
            // place until now.
            let dst = unsafe { &mut *p.dst };
            match p.gpu_landing {
                Some((landing, issued)) => {
                    staging_trace::copied(issued, landed);
                    dst.land(landing);
                }
                None => {
                    let done = self.copier.as_ref().expect("copier").wait_one();
                    staging_trace::copied(done.start, done.end);
                    dst.land(done.into);
                }
            }
        }
        staging_trace::synchronized(began, Instant::now());
    }

    /// Copies started and not yet landed.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }
}
// ANCHOR_END: stream

/// Copies `src` into the 1-D tensor `t` from element `offset` (host to device; returns
/// when the data is there).
pub fn to_device<T: TorchElem>(t: &mut Tensor, offset: usize, src: &[T]) {
    check_kind::<T>(t);
    if src.is_empty() {
        return;
    }
    let began = Instant::now();
    let from = Tensor::from_slice(src).to_device(t.device());
    let mut view = t.narrow(0, offset as i64, src.len() as i64);
    tch::no_grad(|| view.copy_(&from));
    staging_trace::copied_back(began, Instant::now());
}

fn check_kind<T: TorchElem>(t: &Tensor) {
    assert_eq!(
        t.kind(),
        T::KIND,
        "a {:?} tensor staged as {:?}",
        t.kind(),
        T::KIND
    );
    assert_eq!(
        t.dim(),
        1,
        "stage a 1-D tensor (flatten it first: t.view(-1))"
    );
}

// ANCHOR: slots
/// One host buffer pair: what MPI sends from and receives into.
pub struct Slot<T: TorchElem> {
    /// The chunk copied from the device, handed to MPI as the send buffer (pinned on a
    /// GPU node).
    pub send: HostBuf<T>,
    /// MPI's result for that chunk, copied back to the device.
    pub recv: Vec<T>,
}

/// Host memory for a staged allreduce in chunks of `chunk` elements: two slots (double
/// buffering: chunk k+1 is copied into one while chunk k is reduced from the other) and
/// the stream that fills them.
pub struct Staging<T: TorchElem> {
    /// Elements per chunk (at least 1).
    pub chunk: usize,
    /// The two buffer pairs, `chunk` elements each.
    pub slots: [Slot<T>; 2],
    /// Where device-to-host copies are started and synchronised.
    pub stream: CopyStream<T>,
}

impl<T: TorchElem> Staging<T> {
    /// Host buffers for chunks of `chunk` elements of tensors on `device` (at most
    /// `len` elements are ever needed: a chunk larger than the tensor is cut to it).
    pub fn new(chunk: usize, len: usize, device: Device) -> Result<Self, String> {
        if chunk == 0 {
            return Err(
                "a chunk of 0 elements never finishes: give a chunk of at least 1 \
                        element (the whole tensor: its length)"
                    .into(),
            );
        }
        let n = chunk.min(len);
        let slot = || Slot {
            send: HostBuf::new(n, device),
            recv: vec![T::default(); n],
        };
        Ok(Staging {
            chunk,
            slots: [slot(), slot()],
            stream: CopyStream::new(device),
        })
    }
}
// ANCHOR_END: slots

/// The kind of a tensor of `T`, for tests and labs.
pub fn kind_of<T: TorchElem>() -> Kind {
    T::KIND
}
