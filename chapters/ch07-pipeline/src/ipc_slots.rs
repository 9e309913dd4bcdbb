//! Given: the slots of the node-local transport on GPUs: for each direction between two
//! neighbouring stages, [`SLOTS`] buffers on the receiver's GPU, each opened once by the
//! sender with CUDA IPC (`trainer_kit::cuda_ipc`), which then copies device to device into
//! them. The doorbells and acks are [`crate::node_link`]'s.
//!
//! The handles cross once, at the start, in an order that needs no message to be buffered:
//! for the forward direction each stage first sends its handles to the stage before, then
//! receives the next stage's; for the backward direction the other way round. Tested on a
//! GPU by the GPU kit (`device_wire`); on a CPU `--transport ipc` is refused in one line.

use crate::node_link::{Side, SLOTS};
use crate::wire::WireElem;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};
use trainer_kit::cuda_ipc::{IpcReceiver, IpcSender};

/// The tag of the handles and of the closing messages (slot k: this plus k).
const SETUP_TAG: i32 = 32_100;

/// One stage's IPC buffers: what it receives into, and its views of its neighbours'.
pub struct IpcSlots {
    /// The pipeline's stages (a duplicate, kept for the life of the process).
    comm: &'static SimpleCommunicator,
    /// Receivers by the side they receive from (SLOTS each, or none at an end).
    rx: [Vec<IpcReceiver<'static>>; 2],
    /// Senders by the side they send to.
    tx: [Vec<IpcSender<'static>>; 2],
}

impl IpcSlots {
    /// Allocates this stage's buffers on `device` (`from_prev` and `from_next` values of
    /// `E` per slot) and opens its neighbours'. Collective over `pipe`. The transport keeps
    /// a duplicate of `pipe` for the life of the process (the slots outlive any borrow).
    pub fn new<E: WireElem>(
        pipe: &SimpleCommunicator,
        from_prev: usize,
        from_next: usize,
        device: Device,
    ) -> Result<Self, String> {
        let comm: &'static SimpleCommunicator = Box::leak(Box::new(pipe.duplicate()));
        let (s, p) = (comm.rank() as usize, comm.size() as usize);
        let elem = std::mem::size_of::<E>();
        let mut slots = IpcSlots {
            comm,
            rx: [vec![], vec![]],
            tx: [vec![], vec![]],
        };
        let tag = |k: usize| SETUP_TAG + k as i32;
        // Forward: send to the stage before, then receive from the stage after.
        for k in 0..SLOTS {
            if s > 0 {
                let rx = IpcReceiver::new(comm, s as i32 - 1, tag(k), from_prev * elem, device)?;
                slots.rx[Side::Prev as usize].push(rx);
            }
        }
        for k in 0..SLOTS {
            if s + 1 < p {
                let tx = IpcSender::open(comm, s as i32 + 1, tag(k), device)?;
                slots.tx[Side::Next as usize].push(tx);
            }
        }
        // Backward: receive from the stage before, then send to the stage after.
        for k in 0..SLOTS {
            if s > 0 {
                let tx = IpcSender::open(comm, s as i32 - 1, tag(k), device)?;
                slots.tx[Side::Prev as usize].push(tx);
            }
        }
        for k in 0..SLOTS {
            if s + 1 < p {
                let rx = IpcReceiver::new(comm, s as i32 + 1, tag(k), from_next * elem, device)?;
                slots.rx[Side::Next as usize].push(rx);
            }
        }
        Ok(slots)
    }

    /// The pipeline's stages (rank = stage).
    pub fn comm(&self) -> &SimpleCommunicator {
        self.comm
    }

    /// Copies `t` (as `E`s, on this stage's GPU) into slot `k` of the neighbour on `to`.
    pub fn write<E: WireElem>(&mut self, to: Side, k: usize, t: &Tensor) -> Result<(), String> {
        let t = t.detach().to_kind(E::KIND);
        match self.tx[to as usize].get_mut(k) {
            Some(tx) => tx.write(&t),
            None => Err(format!("no IPC slot {k} towards side {to:?}")),
        }
    }

    /// Slot `k` from the neighbour on `from`, as a new tensor of `shape` on this GPU.
    pub fn read<E: WireElem>(
        &mut self,
        from: Side,
        k: usize,
        shape: &[i64],
    ) -> Result<Tensor, String> {
        match self.rx[from as usize].get(k) {
            Some(rx) => rx.read(shape, E::KIND),
            None => Err(format!("no IPC slot {k} from side {from:?}")),
        }
    }

    /// Closes every view and frees every buffer, in the orders of [`IpcSlots::new`].
    pub fn close(self) {
        let [rx_prev, rx_next] = self.rx;
        let [tx_prev, tx_next] = self.tx;
        // Forward: close the views of the next stage's buffers, then free the ones the
        // stage before wrote.
        let mut result: Result<(), String> = Ok(());
        for tx in tx_next {
            result = result.and(tx.close());
        }
        for rx in rx_prev {
            result = result.and(rx.close());
        }
        // Backward: free the buffers the next stage wrote, then close the views of the
        // stage before's.
        for rx in rx_next {
            result = result.and(rx.close());
        }
        for tx in tx_prev {
            result = result.and(tx.close());
        }
        if let Err(why) = result {
            eprintln!("closing the CUDA IPC slots: {why}");
        }
    }
}
