//! Given code for the `gpu` lab: the third path between two ranks of one node, device to
//! device over CUDA IPC ([`trainer_kit::cuda_ipc`]), next to "staged" (through host
//! memory, ex 5.6) and "CUDA-aware" (the MPI library reads GPU memory itself).
//!
//! Ranks 0 and 1 each allocate one receive buffer on their GPU, as large as the largest
//! message, and send its handle to the other, once; each opens the other's handle, once.
//! A transfer is then a device-to-device copy into the peer's buffer, a device
//! synchronisation, and an empty MPI message (the doorbell); the receiver copies the data
//! out and answers with another (the ack) before the buffer is written again. Each
//! direction has its own tag, so a doorbell is never taken for an ack.
//!
//! Where it cannot run (no GPU, no CUDA runtime loaded, ranks 0 and 1 on different nodes)
//! [`IpcPair::open`] says why in one line, on every rank alike, and the lab goes on
//! without the column. Run it through the lab: `make run CH=05 BIN=gpu`.

use crate::measure::{reps_for, seconds_per, tensor};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use trainer_kit::cuda_ipc::{IpcReceiver, IpcSender, Runtime};

/// The tags of the two directions: rank 0 to rank 1, rank 1 to rank 0.
const TAGS: [i32; 2] = [7_501, 7_502];

/// Rank 0's or rank 1's two ends: what it sends into the peer's buffer, and its own buffer.
pub struct IpcPair<'c> {
    sender: IpcSender<'c>,
    receiver: IpcReceiver<'c>,
}

/// A hash of this process's node name (ranks with equal hashes share a node).
fn node_hash() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    mpi::environment::processor_name()
        .unwrap_or_default()
        .hash(&mut h);
    h.finish()
}

/// `Ok` on every rank when all of them say `Ok`; else the first rank's reason, everywhere
/// (ranks that could go on must not wait for ranks that cannot).
fn agreed(world: &SimpleCommunicator, mine: Result<(), String>) -> Result<(), String> {
    let mut all_ok = 0i32;
    let ok = i32::from(mine.is_ok());
    world.all_reduce_into(&ok, &mut all_ok, SystemOperation::min());
    if all_ok == 1 {
        return Ok(());
    }
    match mine {
        Err(why) => Err(why),
        Ok(()) => Err("no CUDA IPC: another rank cannot use it (see its line)".into()),
    }
}

impl<'c> IpcPair<'c> {
    /// Sets up ranks 0 and 1 for messages up to `bytes` on `device` (collective over
    /// `world`: every rank calls it; ranks past 1 get `Ok(None)`), or why IPC cannot be
    /// used here, the same on every rank.
    pub fn open(
        world: &'c SimpleCommunicator,
        bytes: usize,
        device: Device,
    ) -> Result<Option<Self>, String> {
        let mut nodes = vec![0u64; world.size() as usize];
        world.all_gather_into(&node_hash(), &mut nodes[..]);
        let here = Runtime::load().map(|_| ()).and_then(|()| match device {
            Device::Cuda(_) if nodes.len() < 2 => Err("no CUDA IPC: one rank".into()),
            Device::Cuda(_) if nodes[0] != nodes[1] => {
                Err("no CUDA IPC: ranks 0 and 1 are on different nodes".into())
            }
            Device::Cuda(_) => Ok(()),
            other => Err(format!("no CUDA IPC: this rank's tensors are on {other:?}")),
        });
        agreed(world, here)?;
        let rank = world.rank();
        if rank > 1 {
            agreed(world, Ok(()))?;
            return Ok(None);
        }
        let peer = 1 - rank;
        // Both ranks send their handle first (64 bytes, sent eagerly), then receive.
        let pair = IpcReceiver::new(world, peer, TAGS[peer as usize], bytes, device).and_then(
            |receiver| {
                let sender = IpcSender::open(world, peer, TAGS[rank as usize], device)?;
                Ok(IpcPair { sender, receiver })
            },
        );
        match pair {
            Ok(pair) => agreed(world, Ok(())).map(|()| Some(pair)),
            // A half-open pair is left as it is (the process ends soon): closing it would
            // wait for a peer that may be waiting for something else.
            Err(why) => agreed(world, Err(why)).map(|()| None),
        }
    }

    /// Sends `t` to the peer's buffer (device to device) and rings its doorbell.
    pub fn send(&mut self, t: &Tensor) -> Result<(), String> {
        self.sender.send(t)
    }

    /// Waits for the peer's doorbell; the tensor it sent (`shape`, f32), on this GPU.
    pub fn recv(&mut self, shape: &[i64]) -> Result<Tensor, String> {
        self.receiver.recv(shape, Kind::Float)
    }

    /// Closes the view of the peer's buffer, then frees this rank's own once the peer has
    /// closed its view (both ranks call it).
    pub fn close(self) -> Result<(), String> {
        self.sender.close()?;
        self.receiver.close()
    }
}

/// Half the round trip of `n` f32 between ranks 0 and 1 over `pair` (their own; `None`
/// on the other ranks, which only wait), the slowest rank's mean, as
/// [`crate::measure::pingpong`] times the host and staged paths.
pub fn pingpong(
    world: &SimpleCommunicator,
    pair: &mut Option<IpcPair<'_>>,
    n: usize,
    device: Device,
) -> f64 {
    let rank = world.rank();
    let t = tensor(world, n, device);
    let shape = [n as i64];
    let rtt = seconds_per(world, reps_for(4 * n), || {
        let Some(pair) = pair.as_mut() else { return };
        for sending in [rank == 0, rank == 1] {
            let done = match sending {
                true => pair.send(&t),
                false => pair.recv(&shape).map(drop),
            };
            done.unwrap_or_else(|why| panic!("rank {rank}: CUDA IPC ping-pong: {why}"));
        }
    });
    rtt / 2.0
}
