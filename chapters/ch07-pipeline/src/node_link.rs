//! Given: the node-local transport (`--transport shm|ipc`): micro-batches move between
//! neighbouring stages through slots in memory both ranks reach, and MPI carries only two
//! empty messages per transfer, the doorbell (the data is in the slot) and the ack (the
//! slot may be written again). On a CPU the slots are in an MPI-3 shared-memory window
//! ([`crate::shm_window`]); on a GPU they are device buffers opened by CUDA IPC
//! ([`crate::ipc_slots`]).
//!
//! The protocol, per pair of neighbours and per direction: [`SLOTS`] slots, used in turn;
//! the `n`-th message goes into slot `n mod SLOTS`, after the ack of message `n - SLOTS`
//! (the last one that slot held) has come; the receiver consumes the messages in the order
//! they were sent, and acks each once its values are copied out. So a send waits for at
//! most its receiver's earlier receive, never for anything later: GPipe and 1F1B cannot
//! deadlock on it, by the argument of [`crate::send_check`] (a send there waits for its own
//! receive; here the ack it waits for is an older one). Each step ends with [`flush`]: every
//! ack taken, nothing in flight between steps. The schedules without one stream each way
//! between neighbours, received in order (interleaved 1F1B), or on ex 7.9's executor
//! (ZB-H1), are refused by `pipe_config::check`.
//!
//! The executor (ex 7.5) takes a `Transfer`, two plain functions:
//! [`crate::transport::transfer`] gives the pair that runs this protocol on the link
//! [`install`]ed on this thread.

use crate::ipc_slots::IpcSlots;
use crate::shm_window::ShmWindow;
use crate::wire::{self, WireElem};
use mpi::collective::SystemOperation;
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use tch::{Device, Tensor};

/// Slots per direction between two neighbouring stages.
pub const SLOTS: usize = 2;
/// The tag of the acks (micro-batch tags stay below it).
pub const ACK_TAG: i32 = 32_000;
/// No payload: doorbells and acks are empty messages.
static EMPTY: [u8; 0] = [];

/// A neighbour of this stage: the one before it (`Prev`, stage s - 1) or after it (`Next`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Prev = 0,
    Next = 1,
}

/// Where the slots live.
pub enum Medium {
    /// An MPI-3 shared-memory window (host memory; any device's tensors).
    Shm(ShmWindow),
    /// Device buffers of this node's GPUs, opened by CUDA IPC.
    Ipc(IpcSlots),
}

/// This stage's side of the transport: the slots and the protocol's counters.
pub struct Link {
    medium: Medium,
    /// This stage and the number of stages.
    stage: usize,
    stages: usize,
    /// Messages sent, acks taken and messages received, per side.
    sent: [u64; 2],
    acked: [u64; 2],
    received: [u64; 2],
    /// Acks posted and not yet known to be complete.
    acks: Vec<Request<'static, [u8]>>,
    /// A send or receive failed: the job ends; the slots are not freed collectively.
    poisoned: bool,
    /// A planted fault, for the tests: write a slot without waiting for its ack.
    pub planted_skip_ack_wait: bool,
}

thread_local! {
    /// This thread's link (one at a time: a newer one replaces it), with its number.
    static LINK: RefCell<Option<Link>> = const { RefCell::new(None) };
    static INSTALLED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Owns the link installed on this thread: dropping it frees the slots (collectively, on
/// every stage of the pipeline, as every stage drops its trainer), unless a newer link
/// has replaced it.
pub struct LinkGuard(u64);

impl Link {
    /// This stage's link over `medium` (`stage` of `stages`).
    pub fn new(medium: Medium, stage: usize, stages: usize) -> Self {
        Link {
            medium,
            stage,
            stages,
            sent: [0; 2],
            acked: [0; 2],
            received: [0; 2],
            acks: vec![],
            poisoned: false,
            planted_skip_ack_wait: false,
        }
    }

    fn side(&self, peer: usize) -> Result<Side, String> {
        match peer {
            _ if peer + 1 == self.stage => Ok(Side::Prev),
            _ if peer == self.stage + 1 && peer < self.stages => Ok(Side::Next),
            _ => Err(format!(
                "the node-local transport links neighbours only: stage {} to stage {peer}",
                self.stage
            )),
        }
    }

    pub(crate) fn send<E: WireElem>(
        &mut self,
        comm: &SimpleCommunicator,
        to: usize,
        tag: i32,
        t: &Tensor,
        shape: &[i64],
    ) -> Result<(), String> {
        if t.size() != shape {
            return Err(format!(
                "node link: rank {to} (tag {tag}) takes {} values into its slot, not a {} tensor",
                wire::shape_text(shape),
                wire::shape_text(&t.size())
            ));
        }
        let side = self.side(to)?;
        let n = self.sent[side as usize];
        // Slot n mod SLOTS last held message n - SLOTS: its ack first.
        while !self.planted_skip_ack_wait && self.acked[side as usize] + (SLOTS as u64) <= n {
            comm.process_at_rank(to as i32)
                .receive_vec_with_tag::<u8>(ACK_TAG);
            self.acked[side as usize] += 1;
        }
        let slot = (n % SLOTS as u64) as usize;
        match &mut self.medium {
            Medium::Shm(w) => w.write::<E>(side, slot, tag, t)?,
            Medium::Ipc(s) => s.write::<E>(side, slot, t)?,
        }
        self.sent[side as usize] += 1;
        Ok(())
    }

    pub(crate) fn recv<E: WireElem>(
        &mut self,
        comm: &SimpleCommunicator,
        from: usize,
        tag: i32,
        shape: &[i64],
        device: Device,
    ) -> Result<Tensor, String> {
        let side = self.side(from)?;
        let peer = comm.process_at_rank(from as i32);
        let (bell, _) = peer.receive_vec_with_tag::<E>(tag); // the doorbell
        let slot = (self.received[side as usize] % SLOTS as u64) as usize;
        let got = match (&mut self.medium, bell.is_empty()) {
            (_, false) => Err(format!(
                "a doorbell from rank {from} (tag {tag}) holds {} values: is rank {from} on the MPI transport?",
                bell.len()
            )),
            (Medium::Shm(w), true) => w.read::<E>(side, slot, tag, shape, device),
            (Medium::Ipc(s), true) => s.read::<E>(side, slot, shape),
        };
        self.received[side as usize] += 1;
        // The values are copied out (or refused): the slot is free again.
        self.acks
            .push(peer.immediate_send_with_tag(StaticScope, &EMPTY[..], ACK_TAG));
        self.retire_acks();
        got
    }

    /// Completes the acks that are done (each was sent without waiting).
    fn retire_acks(&mut self) {
        let pending = std::mem::take(&mut self.acks);
        for ack in pending {
            if let Err(still) = ack.test() {
                self.acks.push(still);
            }
        }
    }

    /// Takes every ack still owed to this stage and completes its own.
    fn flush(&mut self, comm: &SimpleCommunicator) {
        for side in [Side::Prev, Side::Next] {
            let peer = match side {
                Side::Prev => self.stage.wrapping_sub(1),
                Side::Next => self.stage + 1,
            };
            while self.acked[side as usize] < self.sent[side as usize] {
                comm.process_at_rank(peer as i32)
                    .receive_vec_with_tag::<u8>(ACK_TAG);
                self.acked[side as usize] += 1;
            }
        }
        for ack in self.acks.drain(..) {
            ack.wait();
        }
    }
}

/// Installs `link` as this thread's (the functions of [`transfer`] use it) until the
/// returned guard is dropped.
pub fn install(link: Link) -> LinkGuard {
    let old = LINK.with(|l| l.borrow_mut().replace(link));
    if let Some(old) = old {
        close(old);
    }
    let id = INSTALLED.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    LinkGuard(id)
}

/// Runs `f` on this thread's link (the tests set a planted fault this way).
pub fn with_link<R>(f: impl FnOnce(&mut Link) -> R) -> Option<R> {
    LINK.with(|l| l.borrow_mut().as_mut().map(f))
}

/// Frees the link's slots on every stage, or on none: the stages first agree whether any
/// of them saw a send or receive fail (then the slots are left to the end of the job).
fn close(link: Link) {
    if std::thread::panicking() {
        std::mem::forget(link); // no collective while unwinding
        return;
    }
    let comm = match &link.medium {
        Medium::Shm(w) => w.comm(),
        Medium::Ipc(s) => s.comm(),
    };
    let mut any = 0u8;
    comm.all_reduce_into(&u8::from(link.poisoned), &mut any, SystemOperation::max());
    if any != 0 {
        std::mem::forget(link); // in-flight acks and mapped slots: left to the end of the job
        return;
    }
    match link.medium {
        Medium::Shm(w) => w.free(),
        Medium::Ipc(s) => s.close(),
    }
}

impl Drop for LinkGuard {
    fn drop(&mut self) {
        if INSTALLED.with(|n| n.get()) != self.0 {
            return; // replaced: the newer link's guard frees it
        }
        if let Some(link) = LINK.with(|l| l.borrow_mut().take()) {
            close(link);
        }
    }
}

pub(crate) fn on_link<R>(f: impl FnOnce(&mut Link) -> Result<R, String>) -> Result<R, String> {
    LINK.with(|l| match l.borrow_mut().as_mut() {
        None => Err("no node-local link on this thread (node_link::install)".into()),
        Some(link) => {
            let out = f(link);
            link.poisoned |= out.is_err();
            out
        }
    })
}

/// Ends a step: every ack owed is taken, none is left in flight (see the module's text).
pub fn flush(comm: &SimpleCommunicator) {
    LINK.with(|l| {
        if let Some(link) = l.borrow_mut().as_mut() {
            link.flush(comm);
        }
    })
}
