//! Chapter 15 exercise 15.1, solved: the asynchronous checkpoint. The training thread
//! hands a snapshot to a writer thread and trains on; the next save (or `finish`) waits
//! for that writer and publishes its checkpoint, a collective, on the training thread.

use crate::files::{publish, write_shard, Pace};
use crate::model::Snapshot;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;
use std::thread::JoinHandle;

/// A save in flight: its step and its writer thread (which returns the shard's length).
pub struct InFlight {
    /// The step being saved.
    pub step: u64,
    /// The writer: [`write_shard`] on its own thread.
    pub writer: JoinHandle<Result<u64, String>>,
}

/// Saves checkpoints into `dir` without stopping training.
pub struct AsyncSaver {
    /// The checkpoint's folder.
    pub dir: PathBuf,
    /// The writers' pace (the checks slow them down).
    pub pace: Pace,
    /// The save in flight, if any.
    pub in_flight: Option<InFlight>,
}

impl AsyncSaver {
    /// A saver into `dir` (created by the caller), nothing in flight.
    pub fn new(dir: PathBuf, pace: Pace) -> AsyncSaver {
        AsyncSaver {
            dir,
            pace,
            in_flight: None,
        }
    }
}

// ANCHOR: answer
impl crate::Saver for AsyncSaver {
    fn save(&mut self, world: &SimpleCommunicator, snap: Snapshot) -> Result<(), String> {
        self.finish(world)?;
        let (q, n) = (world.rank() as usize, world.size() as usize);
        let (dir, pace, step) = (self.dir.clone(), self.pace.clone(), snap.step);
        let writer = std::thread::spawn(move || write_shard(&dir, q, n, &snap, &pace));
        self.in_flight = Some(InFlight { step, writer });
        Ok(())
    }

    fn finish(&mut self, world: &SimpleCommunicator) -> Result<Option<u64>, String> {
        let Some(InFlight { step, writer }) = self.in_flight.take() else {
            return Ok(None);
        };
        let wrote = writer
            .join()
            .unwrap_or_else(|_| Err("the writer thread panicked".into()));
        publish(world, &self.dir, step, wrote)?;
        Ok(Some(step))
    }
}
// ANCHOR_END: answer
