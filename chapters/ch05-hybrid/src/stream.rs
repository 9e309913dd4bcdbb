//! Given code: the copies between a tensor's memory and the host buffers MPI reads.
//!
//! On a GPU, a copy from device to host is *started* on a CUDA stream and *lands* later;
//! the host learns that it landed only by synchronising. MPI knows nothing of streams: a
//! buffer handed to MPI before the stream was synchronised may still hold old bytes.
//!
//! [`CopyStream`] gives a CPU machine the same rules, at their strictest: a copy started
//! with [`CopyStream::start_to_host`] lands only at [`CopyStream::synchronize`]. So a
//! missing synchronisation gives a wrong answer on every run, here and in CI, instead of
//! now and then on a GPU. The copy back ([`to_device`]) is synchronous, as the chapter's
//! code uses it.

use mpi::datatype::Equivalence;
use tch::{Device, Kind, Tensor};

/// An element type that both LibTorch and MPI know: f32, f64, i32, i64.
pub trait Elem: tch::kind::Element + Equivalence + Copy + Default + Send + 'static {}
impl Elem for f32 {}
impl Elem for f64 {}
impl Elem for i32 {}
impl Elem for i64 {}

/// One pending copy: `len` elements of `src` (a 1-D view) into host memory at `dst`.
struct Pending<T> {
    src: Tensor,
    dst: *mut T,
    len: usize,
}

// ANCHOR: stream
/// A queue of device-to-host copies that land when the stream is synchronised.
pub struct CopyStream<T: Elem> {
    pending: Vec<Pending<T>>,
    /// The GPU whose work [`synchronize`](Self::synchronize) waits for, if any.
    gpu: Option<usize>,
}

impl<T: Elem> CopyStream<T> {
    /// A stream for tensors on `device`.
    pub fn new(device: Device) -> Self {
        let gpu = match device {
            Device::Cuda(i) => Some(i),
            _ => None,
        };
        CopyStream {
            pending: vec![],
            gpu,
        }
    }

    /// Starts copying `dst.len()` elements of the 1-D tensor `t`, from element `offset`,
    /// into `dst`. Returns at once; the data is in `dst` only after [`synchronize`].
    ///
    /// # Safety
    /// As with `cudaMemcpyAsync`: `dst` must stay alive and in place, and nobody may read
    /// or write it (MPI included), until the next [`synchronize`] returns.
    ///
    /// [`synchronize`]: Self::synchronize
    pub unsafe fn start_to_host(&mut self, t: &Tensor, offset: usize, dst: &mut [T]) {
        check_kind::<T>(t);
        let src = t.narrow(0, offset as i64, dst.len() as i64);
        self.pending.push(Pending {
            src,
            dst: dst.as_mut_ptr(),
            len: dst.len(),
        });
    }

    /// Waits until every copy started so far has landed (`cudaStreamSynchronize`).
    pub fn synchronize(&mut self) {
        if let Some(gpu) = self.gpu {
            tch::Cuda::synchronize(gpu as i64);
        }
        for p in self.pending.drain(..) {
            // SAFETY: the caller of `start_to_host` promised that `dst` is alive, in
            // place and untouched until now.
            let dst = unsafe { std::slice::from_raw_parts_mut(p.dst, p.len) };
            p.src.copy_data(dst, p.len);
        }
    }

    /// Copies started and not yet landed.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }
}
// ANCHOR_END: stream

/// Copies `src` into the 1-D tensor `t` from element `offset` (host to device; returns
/// when the data is there).
pub fn to_device<T: Elem>(t: &mut Tensor, offset: usize, src: &[T]) {
    check_kind::<T>(t);
    if src.is_empty() {
        return;
    }
    let from = Tensor::from_slice(src).to_device(t.device());
    let mut view = t.narrow(0, offset as i64, src.len() as i64);
    tch::no_grad(|| view.copy_(&from));
}

fn check_kind<T: Elem>(t: &Tensor) {
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
pub struct Slot<T> {
    /// The chunk copied from the device, handed to MPI as the send buffer.
    pub send: Vec<T>,
    /// MPI's result for that chunk, copied back to the device.
    pub recv: Vec<T>,
}

/// Host memory for a staged allreduce in chunks of `chunk` elements: two slots (double
/// buffering: chunk k+1 is copied into one while chunk k is reduced from the other) and
/// the stream that fills them.
pub struct Staging<T: Elem> {
    /// Elements per chunk (at least 1).
    pub chunk: usize,
    /// The two buffer pairs, `chunk` elements each.
    pub slots: [Slot<T>; 2],
    /// Where device-to-host copies are started and synchronised.
    pub stream: CopyStream<T>,
}

impl<T: Elem> Staging<T> {
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
            send: vec![T::default(); n],
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
pub fn kind_of<T: Elem>() -> Kind {
    T::KIND
}
