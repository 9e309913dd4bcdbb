//! CUDA IPC: a tensor moves from one rank's GPU memory to another rank's on the same node
//! without the host. The receiver hands the sender a handle to a buffer of its own
//! (`cudaIpcGetMemHandle`, 64 bytes, sent once over MPI); the sender opens it
//! (`cudaIpcOpenMemHandle`) and from then on copies device to device into that buffer.
//! MPI carries only the handle and two empty messages per transfer: the doorbell (the data
//! is there) and the ack (the buffer may be written again).
//!
//! The CUDA runtime is the one LibTorch has already loaded, found at run time (`dlopen` with
//! `RTLD_NOLOAD`), so a CPU build compiles and runs unchanged, and where no GPU can be used
//! [`Runtime::load`] says in one line why (`torch_link::why_no_cuda`). Ranks on other nodes cannot use
//! it: there, a CUDA-aware MPI (UCX) or NCCL moves device memory over the network.
//!
//! Tested on a GPU by the GPU kit (`cargo test -p trainer-kit --test main cuda_ipc::`); on a CPU
//! the test checks the one-line reason.

pub use crate::cuda_runtime::Runtime;
use crate::cuda_runtime::{gpu_index, IpcHandle, LAZY_ENABLE_PEER_ACCESS};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ffi::c_void;
use tch::{Device, Kind, Tensor};

/// What rank `peer` receives from this rank: a view of `peer`'s buffer, opened once.
pub struct IpcSender<'c> {
    comm: &'c SimpleCommunicator,
    peer: i32,
    tag: i32,
    rt: &'static Runtime,
    remote: *mut c_void,
    bytes: usize,
    waiting_ack: bool,
}

/// A buffer on this rank's GPU that rank `peer` writes into.
pub struct IpcReceiver<'c> {
    comm: &'c SimpleCommunicator,
    peer: i32,
    tag: i32,
    rt: &'static Runtime,
    local: *mut c_void,
    bytes: usize,
    device: Device,
}

impl<'c> IpcReceiver<'c> {
    /// Allocates `bytes` on `device` (with `cudaMalloc`, so the handle names exactly this
    /// buffer) and sends its handle to `peer`, whose [`IpcSender::open`] receives it.
    pub fn new(
        comm: &'c SimpleCommunicator,
        peer: i32,
        tag: i32,
        bytes: usize,
        device: Device,
    ) -> Result<Self, String> {
        let rt = Runtime::load()?;
        let mut local = std::ptr::null_mut();
        let mut handle = IpcHandle { reserved: [0; 64] };
        // SAFETY: out-pointers to locals; the buffer lives until `close`.
        unsafe {
            rt.check("cudaSetDevice", (rt.set_device)(gpu_index(device)?))?;
            rt.check("cudaMalloc", (rt.malloc)(&mut local, bytes.max(1)))?;
            rt.check("cudaIpcGetMemHandle", (rt.get_handle)(&mut handle, local))?;
        }
        let proc = comm.process_at_rank(peer);
        proc.send_with_tag(&handle.reserved[..], tag);
        proc.send_with_tag(&(bytes as u64), tag);
        Ok(IpcReceiver {
            comm,
            peer,
            tag,
            rt,
            local,
            bytes,
            device,
        })
    }

    /// Waits for the sender's doorbell, copies the tensor (`shape`, `kind`) out of the
    /// buffer into a new one on this GPU, and acks, so the sender may write again.
    pub fn recv(&mut self, shape: &[i64], kind: Kind) -> Result<Tensor, String> {
        let proc = self.comm.process_at_rank(self.peer);
        let (_, _) = proc.receive_vec_with_tag::<u8>(self.tag); // the doorbell
        let out = self.read(shape, kind)?;
        proc.send_with_tag(&[0u8; 0][..], self.tag); // the ack
        Ok(out)
    }

    /// Copies the tensor (`shape`, `kind`) out of the buffer into a new one on this GPU,
    /// synchronised (the buffer may be written again when it returns); no doorbell, no
    /// ack: for a caller that runs its own protocol (chapter 7's node-local transport).
    pub fn read(&self, shape: &[i64], kind: Kind) -> Result<Tensor, String> {
        let elems: i64 = shape.iter().product();
        let want = elems as usize * kind.elt_size_in_bytes();
        if want > self.bytes {
            return Err(format!(
                "IPC receive of {want} bytes into a {}-byte buffer",
                self.bytes
            ));
        }
        // SAFETY: `local` is this rank's allocation of `bytes` >= `want` bytes on `device`.
        let view =
            unsafe { Tensor::from_blob(self.local as *const u8, shape, &[], kind, self.device) };
        let out = view.copy();
        tch::Cuda::synchronize(gpu_index(self.device)? as i64); // the copy has read the buffer
        Ok(out)
    }

    /// Waits until the sender has closed its view, then frees the buffer.
    pub fn close(self) -> Result<(), String> {
        let _ = self
            .comm
            .process_at_rank(self.peer)
            .receive_vec_with_tag::<u8>(self.tag);
        // SAFETY: no process maps the buffer any more (the sender closed its view).
        self.rt
            .check("cudaFree", unsafe { (self.rt.free)(self.local) })
    }
}

impl<'c> IpcSender<'c> {
    /// Receives `peer`'s handle (sent by its [`IpcReceiver::new`]) and opens it on `device`.
    pub fn open(
        comm: &'c SimpleCommunicator,
        peer: i32,
        tag: i32,
        device: Device,
    ) -> Result<Self, String> {
        let rt = Runtime::load()?;
        let proc = comm.process_at_rank(peer);
        let (raw, _) = proc.receive_vec_with_tag::<u8>(tag);
        let (bytes, _) = proc.receive_with_tag::<u64>(tag);
        let mut handle = IpcHandle { reserved: [0; 64] };
        if raw.len() != 64 {
            return Err(format!(
                "a CUDA IPC handle is 64 bytes, rank {peer} sent {}",
                raw.len()
            ));
        }
        handle.reserved.copy_from_slice(&raw);
        let mut remote = std::ptr::null_mut();
        // SAFETY: the handle came from cudaIpcGetMemHandle in another process of this node.
        unsafe {
            rt.check("cudaSetDevice", (rt.set_device)(gpu_index(device)?))?;
            let code = (rt.open_handle)(&mut remote, handle, LAZY_ENABLE_PEER_ACCESS);
            rt.check("cudaIpcOpenMemHandle (is the peer on this node?)", code)?;
        }
        Ok(IpcSender {
            comm,
            peer,
            tag,
            rt,
            remote,
            bytes: bytes as usize,
            waiting_ack: false,
        })
    }

    /// Copies `t` (on this rank's GPU) into the peer's buffer, device to device, and rings
    /// the doorbell; first waits for the ack of the previous transfer.
    pub fn send(&mut self, t: &Tensor) -> Result<(), String> {
        let proc = self.comm.process_at_rank(self.peer);
        if self.waiting_ack {
            let _ = proc.receive_vec_with_tag::<u8>(self.tag);
        }
        self.write(t)?;
        proc.send_with_tag(&[0u8; 0][..], self.tag); // the doorbell
        self.waiting_ack = true;
        Ok(())
    }

    /// Copies `t` (on this rank's GPU) into the peer's buffer, device to device,
    /// synchronised (the data is in the peer's memory when it returns); no ack awaited, no
    /// doorbell: for a caller that runs its own protocol (chapter 7's node-local transport).
    pub fn write(&mut self, t: &Tensor) -> Result<(), String> {
        let bytes = t.numel() * t.kind().elt_size_in_bytes();
        if bytes > self.bytes {
            return Err(format!(
                "IPC send of {bytes} bytes into a {}-byte buffer",
                self.bytes
            ));
        }
        let device = t.device();
        // SAFETY: `remote` maps the peer's buffer of `self.bytes` >= `bytes` bytes into this
        // process, on this rank's device.
        let mut view = unsafe {
            Tensor::from_blob(self.remote as *const u8, &t.size(), &[], t.kind(), device)
        };
        view.copy_(&t.contiguous());
        tch::Cuda::synchronize(gpu_index(device)? as i64); // the data is in the peer's memory
        Ok(())
    }

    /// Waits for the last ack, closes the view and tells the receiver it may free.
    pub fn close(mut self) -> Result<(), String> {
        let proc = self.comm.process_at_rank(self.peer);
        if std::mem::take(&mut self.waiting_ack) {
            let _ = proc.receive_vec_with_tag::<u8>(self.tag);
        }
        // SAFETY: `remote` came from cudaIpcOpenMemHandle and no tensor views it any more.
        let closed = self.rt.check("cudaIpcCloseMemHandle", unsafe {
            (self.rt.close_handle)(self.remote)
        });
        proc.send_with_tag(&[0u8; 0][..], self.tag);
        closed
    }
}
