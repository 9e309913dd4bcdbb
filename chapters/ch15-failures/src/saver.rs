//! Chapter 15 exercise 15.1: the asynchronous checkpoint. A synchronous save stops
//! training while the shard is serialised, written and synced. Here the training thread
//! only copies its state (a [`Snapshot`], taken by the caller) and hands it to a writer
//! thread, then trains on. At most one save is in flight: the next save, or [`finish`],
//! first waits for the previous writer and publishes its checkpoint. Publishing is a
//! collective (the ranks agree that every shard is on disk), so it happens on the
//! training thread, where MPI may be called; the writer touches files only. Check with
//! `make check CH=15`.
//!
//! [`finish`]: crate::Saver::finish
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::files::{publish, write_shard};
pub use crate::in_flight::{AsyncSaver, InFlight};
use crate::model::Snapshot;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

impl crate::Saver for AsyncSaver {
    // ANCHOR: save
    /// Starts saving `snap` and returns while it is written (collective: every rank calls
    /// it at the same step):
    /// 1. [`finish`](crate::Saver::finish) the save in flight, if any (at most one at once);
    /// 2. start a writer thread that calls [`write_shard`] on `snap` (moved into it) with
    ///    this rank's number, the number of ranks and `self.pace`;
    /// 3. keep it, with `snap.step`, as the save in flight.
    fn save(&mut self, world: &SimpleCommunicator, snap: Snapshot) -> Result<(), String> {
        // TODO(ex 15.1): finish the previous save; spawn the writer; keep it in flight
        todo!("ex 15.1: the asynchronous save")
    }
    // ANCHOR_END: save

    // ANCHOR: finish
    /// Ends the save in flight (collective): waits for its writer (`join`), then
    /// [`publish`]es its step with what the writer returned, on every rank, even one whose
    /// writer failed (the ranks agree in `publish`). The step published, or None when
    /// nothing was in flight.
    fn finish(&mut self, world: &SimpleCommunicator) -> Result<Option<u64>, String> {
        // TODO(ex 15.1): take the save in flight; join its writer; publish its step
        todo!("ex 15.1: finishing the save in flight")
    }
    // ANCHOR_END: finish
}
