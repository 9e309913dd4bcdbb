//! Exercise 5.4: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

use crate::threading::ThreadComm;
use mpi::point_to_point as p2p;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: ring_per_thread
/// A ring shift done by T threads at once, each on a communicator of its own.
pub fn ring_per_thread(world: &SimpleCommunicator, outgoing: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (rank, size) = (world.rank(), world.size());
    let (right, left) = ((rank + 1) % size, (rank + size - 1) % size);
    // Collective: every rank duplicates, on its main thread, in the same order, so the
    // t-th duplicate of every rank is one communicator: thread t's, on every rank.
    let comms: Vec<ThreadComm> = outgoing
        .iter()
        .map(|_| ThreadComm(world.duplicate()))
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = comms
            .into_iter()
            .zip(outgoing)
            .map(|(comm, out)| {
                s.spawn(move || {
                    let c = comm.comm(); // the whole ThreadComm moves in (Send)
                    let mut buf = vec![0.0; out.len()];
                    let (to, from) = (c.process_at_rank(right), c.process_at_rank(left));
                    p2p::send_receive_into(&out[..], &to, &mut buf[..], &from);
                    buf
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a thread of the ring panicked"))
            .collect()
    })
}
// ANCHOR_END: ring_per_thread
