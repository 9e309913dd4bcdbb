//! The machine's limits and calibration, printed before the sweep's table: chapter 1's
//! ping-pong peak, memcpy with every rank copying, the calibrated rungs of the cost
//! model, and glibc's allocator told to keep freed memory. Part of the `sweep`
//! benchmark (`make bench CH=03`).

use ch01::pingpong::{idle_until_done, one_way_seconds};
use ch03::cost::Machine;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use toolkit::report::Timing;

/// Keeps freed memory in the process: no `mmap` per large vector, no trimming of the
/// heap. Every algorithm here allocates its result (and buffers) per call; with glibc's
/// defaults a large vector is fresh pages each time, and a page fault per 4 KiB page
/// (microseconds in a VM) would dominate the times, differently for each algorithm and
/// size. Libraries keep buffer pools for the same reason.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation thresholds; called before any thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Bytes per second of chapter 1's ping-pong at 4 MiB between ranks 0 and 1 (the others
/// idle), best of 3: one message in flight at a time. Known on rank 0.
pub fn pingpong_peak(w: &SimpleCommunicator) -> f64 {
    let bytes = 4 << 20;
    let mut best = f64::INFINITY;
    if w.rank() < 2 {
        for _ in 0..3 {
            best = best.min(one_way_seconds(w, bytes, 20));
        }
    }
    idle_until_done(w);
    bytes as f64 / best
}

/// Bytes per second of `copy_from_slice` between two warm buffers of `bytes` bytes,
/// every rank copying at once (read + write counted), best of 5: the memory system's
/// limit for moving data on this host, measured in the same run.
pub fn memcpy_bandwidth(w: &SimpleCommunicator, bytes: usize) -> f64 {
    let (src, mut dst) = (vec![1u8; bytes], vec![0u8; bytes]);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        w.barrier();
        let start = Instant::now();
        dst.copy_from_slice(&src);
        std::hint::black_box(&dst);
        best = best.min(Timing::over_ranks(w, start.elapsed().as_secs_f64()).max);
    }
    2.0 * bytes as f64 / best
}

/// The calibration: one line per rung, and the crossover (the largest fall of beta).
pub fn print_machine(m: &Machine, p: usize, memcpy: f64) {
    println!(
        "# calibration at {p} ranks, every rank busy (alpha from an 8-byte ring shift); \
         the rung of each size was measured again right before it:"
    );
    println!("#   vector  alpha(us)  rendezvous(us)  beta(GB/s)  gamma(ns/B)  fresh(ns/B)");
    for r in &m.rungs {
        let c = &r.model;
        println!(
            "#   {:>6}  {:>9.2}  {:>14.2}  {:>10.2}  {:>11.3}  {:>11.3}",
            kib(r.bytes),
            c.link.alpha * 1e6,
            c.rendezvous * 1e6,
            c.link.beta / 1e9,
            c.gamma * 1e9,
            c.fresh * 1e9
        );
    }
    if let Some((a, b)) = m.crossover() {
        println!(
            "# crossover: beta falls most between {} ({:.2} GB/s) and {} ({:.2} GB/s): \
             the vectors of {p} ranks stop fitting in the cache",
            kib(a.bytes),
            a.model.link.beta / 1e9,
            kib(b.bytes),
            b.model.link.beta / 1e9
        );
    }
    println!(
        "# memcpy, every rank at once, 64 MiB: {:.2} GB/s per rank",
        memcpy / 1e9
    );
}

/// A size in KiB or MiB.
pub fn kib(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}
