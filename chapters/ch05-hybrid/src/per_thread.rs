//! Exercise 5.4: threads that each communicate (MPI_THREAD_MULTIPLE).
//!
//! Check: `make check CH=05` (test `ex5_4_each_thread_gets_its_partners_message`: at 1 to
//! 4 ranks x 1 to 4 threads, thread t of every rank gets exactly what thread t of the rank
//! on its left sent).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::threading::ThreadComm;
use mpi::point_to_point as p2p;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: ring_per_thread
/// A ring shift done by T threads at once, T = `outgoing.len()` (the same on every rank):
/// thread t sends `outgoing[t]` to thread t of the rank on the right (`rank + 1`, wrapping)
/// and receives, into a vector of the same length, what thread t of the rank on the left
/// sent. Returns what each thread received, in thread order. MPI must have granted
/// `MPI_THREAD_MULTIPLE`.
///
/// The threads run at once, so their messages travel at once: nothing in a message says
/// which thread it is for, unless you make it so. Give each thread a communicator of its
/// own: duplicate `world` once per thread *on the main thread* (`world.duplicate()` is
/// collective: every rank duplicates in the same order), wrap each in a [`ThreadComm`] to
/// move it into its thread (inside the thread, `comm.comm()` is the communicator), and
/// exchange with
/// `p2p::send_receive_into(&out[..], &right, &mut buf[..], &left)` (with one rank, the
/// partner is yourself). Start the threads with `std::thread::scope`.
pub fn ring_per_thread(world: &SimpleCommunicator, outgoing: &[Vec<f64>]) -> Vec<Vec<f64>> {
    // TODO(ex 5.4): one duplicated communicator per thread, one sendrecv per thread
    todo!("ex 5.4: give each thread its own communicator and exchange on it")
}
// ANCHOR_END: ring_per_thread
