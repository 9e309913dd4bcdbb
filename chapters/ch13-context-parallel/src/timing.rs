//! Given: how the labs time a rank's work. Alone: rank 0 runs every rank's share of the
//! attention in turn, with no communication, while the other ranks sleep in a barrier (no
//! rank's time includes another's use of the cores, nor a difference between processes).
//! Together: all ranks at once, between barriers. Nothing to run here: the labs use it.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// Seconds of `work(r)` for every rank `r` of `world`, timed by rank 0 alone (the best of
/// 5 rounds of all ranks in turn) while the others sleep; the other ranks get zeros.
/// Collective.
pub fn every_rank_alone(world: &SimpleCommunicator, work: impl Fn(usize)) -> Vec<f64> {
    let p = world.size() as usize;
    let mut best = vec![f64::MAX; p];
    if world.rank() == 0 {
        for _ in 0..5 {
            for (r, b) in best.iter_mut().enumerate() {
                let t = Instant::now();
                work(r);
                *b = b.min(t.elapsed().as_secs_f64());
            }
        }
    } else {
        best = vec![0.0; p];
    }
    quiet_barrier(world);
    best
}

/// Seconds of `f` on all ranks at once, the best of 3, each try after a barrier.
/// Collective.
pub fn best_of_3(world: &SimpleCommunicator, f: &dyn Fn()) -> f64 {
    (0..3)
        .map(|_| {
            world.barrier();
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// A barrier whose waiting ranks sleep between polls instead of spinning on a core.
pub fn quiet_barrier(world: &SimpleCommunicator) {
    let mut request = world.immediate_barrier();
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}
