//! Ping-pong: the oldest benchmark of a network. Rank 0 sends a message to rank 1, which
//! sends it straight back; half the round trip is the one-way time of that size.
//!
//! Given code, used by the `pingpong` lab (`make run CH=01 BIN=pingpong`). Only ranks 0
//! and 1 take part; the others wait in [`idle_until_done`] without taking a core away.

use crate::PING_TAG;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

// ANCHOR: round_trips
/// Times `reps` round trips of `bytes` bytes between ranks 0 and 1 and returns the mean
/// one-way time in seconds (on ranks 0 and 1; call it on no other rank). One untimed
/// round trip first warms the path up. Rank 0 checks that what came back is what it sent.
pub fn one_way_seconds(world: &SimpleCommunicator, bytes: usize, reps: usize) -> f64 {
    let rank = world.rank();
    let partner = world.process_at_rank(1 - rank);
    let sent: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8).collect();
    let mut buf = vec![0u8; bytes];
    let mut start = 0.0;
    for rep in 0..=reps {
        if rep == 1 {
            start = mpi::time(); // rep 0 was the warm-up
        }
        if rank == 0 {
            partner.send_with_tag(&sent[..], PING_TAG);
            partner.receive_into_with_tag(&mut buf[..], PING_TAG);
        } else {
            partner.receive_into_with_tag(&mut buf[..], PING_TAG);
            partner.send_with_tag(&buf[..], PING_TAG);
        }
    }
    let elapsed = mpi::time() - start;
    assert!(buf == sent, "ping-pong of {bytes} bytes came back changed");
    elapsed / (2 * reps) as f64
}
// ANCHOR_END: round_trips

/// Waits at a barrier by polling it every millisecond and sleeping in between, so a rank
/// with nothing to do leaves the cores to the ranks being timed (a blocking
/// `MPI_Barrier` would spin on an oversubscribed laptop and disturb the measurement).
pub fn idle_until_done(world: &SimpleCommunicator) {
    let mut request = world.immediate_barrier();
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
