//! Given: the slots of the node-local transport on a CPU: an MPI-3 shared-memory window
//! (`MPI_Win_allocate_shared`) over the stages of one pipeline, which must share a node
//! (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`, rsmpi's `split_shared`; refused in one
//! line otherwise, on every rank).
//!
//! Each stage's segment holds the slots it receives into: [`SLOTS`] from the stage before
//! it (activations) and [`SLOTS`] from the stage after it (gradients). A slot is a header
//! (the message's tag and its number of values) and room for the largest message of its
//! direction. The sender writes its neighbour's slot with ordinary stores, then
//! `MPI_Win_sync` and the doorbell; the receiver, after the doorbell, `MPI_Win_sync` and
//! reads (the window's unified memory model, under one `MPI_Win_lock_all`).

use crate::node_link::{Side, SLOTS};
use crate::wire::{self, WireElem};
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ffi::c_void;
use tch::{Device, Tensor};

/// A segment's header: its two capacities (values per slot, from Prev and from Next).
const SEGMENT_HEADER: usize = 64;
/// A slot's header: the tag (i64) and the number of values (u64).
const SLOT_HEADER: usize = 16;

/// The shared window of one pipeline's stages, seen from one stage.
pub struct ShmWindow {
    win: ffi::MPI_Win,
    /// The stages of this node's pipeline (the window's group); lives as long as `win`.
    node: SimpleCommunicator,
    /// This stage's segment, and its neighbours' (null where there is none).
    mine: *mut u8,
    prev: *mut u8,
    next: *mut u8,
    stage: usize,
    /// Bytes per value on the wire.
    elem: usize,
}

fn slot_bytes(cap: usize, elem: usize) -> usize {
    (SLOT_HEADER + cap * elem).div_ceil(64) * 64
}

/// The capacities in a segment's header: (from Prev, from Next).
///
/// # Safety
/// `seg` is a segment of a live window, its header written.
unsafe fn caps(seg: *const u8) -> (usize, usize) {
    let h = seg as *const u64;
    (*h as usize, *h.add(1) as usize)
}

/// The start of slot `k` of `seg`'s region that receives from `from`.
///
/// # Safety
/// As for [`caps`].
unsafe fn slot(seg: *mut u8, from: Side, k: usize, elem: usize) -> (*mut u8, usize) {
    let (cap_prev, cap_next) = caps(seg);
    let region = match from {
        Side::Prev => SEGMENT_HEADER,
        Side::Next => SEGMENT_HEADER + SLOTS * slot_bytes(cap_prev, elem),
    };
    let cap = match from {
        Side::Prev => cap_prev,
        Side::Next => cap_next,
    };
    (seg.add(region + k * slot_bytes(cap, elem)), cap)
}

impl ShmWindow {
    /// This stage's window over `pipe` (its stage = its rank there): room for `from_prev`
    /// and `from_next` values of `E` per slot. Collective over `world` (every rank agrees
    /// on a refusal: a pipeline whose stages are not all on one node).
    pub fn new<E: WireElem>(
        world: &SimpleCommunicator,
        pipe: &SimpleCommunicator,
        from_prev: usize,
        from_next: usize,
    ) -> Result<Self, String> {
        let node = pipe.split_shared(0);
        let mine = match node.size() == pipe.size() && node.rank() == pipe.rank() {
            true => Ok(()),
            false => Err(format!(
                "--transport shm: the {} stages of a pipeline must share one node; {} of them share this one",
                pipe.size(),
                node.size()
            )),
        };
        toolkit::lockstep::agree(world, mine)?;
        let elem = std::mem::size_of::<E>();
        let bytes =
            SEGMENT_HEADER + SLOTS * (slot_bytes(from_prev, elem) + slot_bytes(from_next, elem));
        let mut base: *mut u8 = std::ptr::null_mut();
        // SAFETY: MPI_Win_allocate_shared is collective over `node`, which every stage
        // calls here; `base` receives this rank's segment of `bytes` bytes.
        let win = unsafe {
            let mut win = std::mem::zeroed::<ffi::MPI_Win>();
            let info = ffi::RSMPI_INFO_NULL;
            let rc = ffi::MPI_Win_allocate_shared(
                bytes as ffi::MPI_Aint,
                1,
                info,
                node.as_raw(),
                &mut base as *mut *mut u8 as *mut c_void,
                &mut win,
            );
            if rc != 0 {
                return Err(format!("MPI_Win_allocate_shared failed (error {rc})"));
            }
            let h = base as *mut u64;
            (*h, *h.add(1)) = (from_prev as u64, from_next as u64);
            ffi::MPI_Win_lock_all(ffi::MPI_MODE_NOCHECK as i32, win);
            ffi::MPI_Win_sync(win);
            win
        };
        node.barrier(); // every header is written
        let stage = pipe.rank() as usize;
        let segment = |r: usize| -> *mut u8 {
            let (mut size, mut unit, mut ptr) = (0 as ffi::MPI_Aint, 0, std::ptr::null_mut::<u8>());
            // SAFETY: `r` is a rank of the window's group; out-pointers to locals.
            unsafe {
                ffi::MPI_Win_shared_query(
                    win,
                    r as i32,
                    &mut size,
                    &mut unit,
                    &mut ptr as *mut *mut u8 as *mut c_void,
                );
            }
            ptr
        };
        let p = pipe.size() as usize;
        // SAFETY: after the barrier and a sync every segment's header is visible.
        unsafe { ffi::MPI_Win_sync(win) };
        Ok(ShmWindow {
            win,
            node,
            mine: base,
            prev: if stage > 0 {
                segment(stage - 1)
            } else {
                std::ptr::null_mut()
            },
            next: if stage + 1 < p {
                segment(stage + 1)
            } else {
                std::ptr::null_mut()
            },
            stage,
            elem,
        })
    }

    /// Writes `t` (as `E`s) with `tag` into slot `k` of the neighbour on side `to`, in its
    /// region for messages from this stage; then makes the stores visible.
    pub fn write<E: WireElem>(
        &mut self,
        to: Side,
        k: usize,
        tag: i32,
        t: &Tensor,
    ) -> Result<(), String> {
        let (seg, from) = match to {
            Side::Next => (self.next, Side::Prev), // this stage is the next one's Prev
            Side::Prev => (self.prev, Side::Next),
        };
        if seg.is_null() {
            return Err(format!(
                "stage {} has no neighbour on side {to:?}",
                self.stage
            ));
        }
        let host = t
            .detach()
            .to_device(Device::Cpu)
            .to_kind(E::KIND)
            .contiguous();
        let n = host.numel();
        // SAFETY: `seg` is the neighbour's live segment; the slot's room is checked below,
        // and its receiver does not read it until the doorbell (it acked its last reading).
        unsafe {
            let (at, cap) = slot(seg, from, k, self.elem);
            if n > cap {
                return Err(format!("a message of {n} values for a slot of {cap}"));
            }
            let h = at as *mut u64;
            (*h, *h.add(1)) = (tag as u64, n as u64);
            let values = std::slice::from_raw_parts_mut(at.add(SLOT_HEADER) as *mut E, n);
            host.copy_data(values, n);
            ffi::MPI_Win_sync(self.win);
        }
        Ok(())
    }

    /// After the doorbell: slot `k` of this stage's region from side `from`, which must
    /// hold `tag` and exactly `shape`'s values, as a new tensor on `device`.
    pub fn read<E: WireElem>(
        &mut self,
        from: Side,
        k: usize,
        tag: i32,
        shape: &[i64],
        device: Device,
    ) -> Result<Tensor, String> {
        let peer = match from {
            Side::Prev => self.stage as i64 - 1,
            Side::Next => self.stage as i64 + 1,
        };
        // SAFETY: this stage's own live segment; the sender wrote the slot before the
        // doorbell and does not write it again before the ack.
        unsafe {
            ffi::MPI_Win_sync(self.win);
            let (at, _) = slot(self.mine, from, k, self.elem);
            let h = at as *const u64;
            let (got, n) = (*h as i64 as i32, *h.add(1) as usize);
            if got != tag {
                return Err(format!(
                    "slot {k} from rank {peer} holds micro-batch {got}, not {tag}: written again before its ack, or consumed out of order"
                ));
            }
            if n != wire::numel(shape) {
                return Err(format!(
                    "expected a {} tensor ({} values) from rank {peer} (tag {tag}), the slot holds {n} values",
                    wire::shape_text(shape),
                    wire::numel(shape)
                ));
            }
            let values = std::slice::from_raw_parts(at.add(SLOT_HEADER) as *const E, n);
            Ok(wire::copy_in(values, shape, device))
        }
    }

    /// The stages sharing the window (rank = stage).
    pub fn comm(&self) -> &SimpleCommunicator {
        &self.node
    }

    /// Frees the window (collective over the pipeline's stages).
    pub fn free(mut self) {
        // SAFETY: no slot is in use (the last step was flushed); every stage frees.
        unsafe {
            ffi::MPI_Win_unlock_all(self.win);
            ffi::MPI_Win_free(&mut self.win);
        }
    }
}
