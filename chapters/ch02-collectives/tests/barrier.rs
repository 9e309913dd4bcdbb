//! Check of exercise 2.8 (dissemination barrier) at 1, 2, 3, 4, 5, 8 ranks.
//!
//! Run: `make check CH=02` or `cargo test -p ch02-collectives --features solution --test
//! barrier`. A barrier has no result to compare, so the test checks what it promises: no
//! rank leaves before the last rank has entered. Each rank sleeps a random time, notes the
//! host's clock on entry and on exit, and rank times are compared afterwards.

use ch02::barrier::barrier_dissemination;
use ch02::reference;
use mpi::traits::*;
use proptest::prelude::*;
use std::time::Duration;
use toolkit::lockstep::property;
use toolkit::mpi_test;

const RANKS: &[u32] = &[1, 2, 3, 4, 5, 8];

// ANCHOR: barrier_property
mpi_test! {
    fn ex2_8_barrier_dissemination(world at RANKS) {
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        // Up to 3 barriers in a row; before each, every rank sleeps its own 0-2 ms.
        let sleeps = prop::collection::vec(prop::collection::vec(0..2000u64, size), 1..=3);
        // One clock for all ranks: the host's wall clock (all ranks run on one host here).
        // Not mpi::time(): Open MPI counts MPI_Wtime from a per-process origin, so two
        // ranks' readings are not comparable. On one clock causality orders the times
        // exactly; the tolerance covers the clock's resolution (an f64 of ~1.7e9 s
        // resolves ~0.25 µs). On a cluster the hosts' clocks differ by far more.
        let tolerance = 1e-6;
        property(
            world,
            "no rank leaves the barrier before every rank entered it",
        )
        .cases(24)
        .check(sleeps, |sleeps| {
            let mut times = vec![];
            for round in sleeps {
                std::thread::sleep(Duration::from_micros(round[rank]));
                times.push(host_clock());
                barrier_dissemination(world);
                times.push(host_clock());
            }
            let all = reference::allgather(world, &times); // rank r's times at r * len
            let at = |r: usize, i: usize| all[r * times.len() + i];
            for b in 0..sleeps.len() {
                let last_in = (0..size).max_by(|&p, &q| at(p, 2 * b).total_cmp(&at(q, 2 * b)));
                let first_out =
                    (0..size).min_by(|&p, &q| at(p, 2 * b + 1).total_cmp(&at(q, 2 * b + 1)));
                let (i, o) = (last_in.unwrap_or(0), first_out.unwrap_or(0));
                let (entered, left) = (at(i, 2 * b), at(o, 2 * b + 1));
                if entered > left + tolerance {
                    return Err(format!(
                        "barrier {}: rank {o} left {:.0} µs before rank {i} entered",
                        b + 1,
                        (entered - left) * 1e6
                    ));
                }
            }
            Ok(())
        })
    }
}
// ANCHOR_END: barrier_property

/// Seconds since 1970 on this host's wall clock, the same clock for every process.
fn host_clock() -> f64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map(|d| d.as_secs_f64()).unwrap_or(0.0)
}
