//! Chapter 15 exercise 15.1, solved: the asynchronous checkpoint. The training thread
//! hands a snapshot to a writer thread and trains on; the next save (or `finish`) waits
//! for that writer and publishes its checkpoint, a collective, on the training thread.

use crate::files::{publish, write_shard};
pub use crate::in_flight::{AsyncSaver, InFlight};
use crate::model::Snapshot;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

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
