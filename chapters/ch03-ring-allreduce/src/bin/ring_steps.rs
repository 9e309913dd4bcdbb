//! Lab: the ring allreduce step by step, on a vector of 10 integers (not divisible by the
//! number of ranks), then a short race against MPI_Allreduce.
//!
//! Run: `make run CH=03` (your ex 3.1 and 3.2; `SOLUTION=1` for the answers; `NP=3`
//! for another ring). Expect: the schedule of every step (which chunk each rank sends and
//! receives), every rank's vector after the reduce-scatter (one chunk complete on each
//! rank) and after the allgather (all complete), `equal to MPI_Allreduce: yes`, and the
//! times of both on 1M f64.

use ch03::ops::Op;
use ch03::{chunk_range, owned_chunk, reference, ring};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

const LEN: usize = 10;

/// Rank 0 prints every rank's vector, one line each, under `title`.
fn show(world: &SimpleCommunicator, title: &str, data: &[i64]) {
    let size = world.size() as usize;
    let root = world.process_at_rank(0);
    if world.rank() == 0 {
        let mut all = vec![0i64; data.len() * size];
        root.gather_into_root(data, &mut all[..]);
        println!("{title}");
        for (r, row) in all.chunks(data.len().max(1)).enumerate() {
            println!("  rank {r}: {row:?}");
        }
    } else {
        root.gather_into(data);
    }
}

// ANCHOR: schedule
/// The schedule of both phases for `p` ranks: who sends which chunk in each step.
fn print_schedule(p: usize) {
    let ranges: Vec<_> = (0..p).map(|i| chunk_range(LEN, p, i)).collect();
    println!("{LEN} elements over {p} ranks: chunks {ranges:?}");
    for s in 0..p - 1 {
        let line: Vec<String> = (0..p)
            .map(|r| {
                format!(
                    "{r} sends c{} gets c{}",
                    (r + p - s) % p,
                    (r + 2 * p - s - 1) % p
                )
            })
            .collect();
        println!("reduce-scatter step {s}: {}", line.join(" | "));
    }
    for s in 0..p - 1 {
        let line: Vec<String> = (0..p)
            .map(|r| {
                format!(
                    "{r} sends c{} gets c{}",
                    (r + 1 + p - s) % p,
                    (r + p - s) % p
                )
            })
            .collect();
        println!("allgather      step {s}: {}", line.join(" | "));
    }
}
// ANCHOR_END: schedule

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    if rank == 0 {
        print_schedule(size);
        let owners: Vec<String> = (0..size)
            .map(|r| format!("rank {r} -> c{}", owned_chunk(r, size)))
            .collect();
        println!(
            "after the reduce-scatter, complete: {}\n",
            owners.join(", ")
        );
    }
    // Rank r holds 100·(r+1) + i: the sums show which ranks went into each element.
    let xs: Vec<i64> = (0..LEN as i64)
        .map(|i| 100 * (rank as i64 + 1) + i)
        .collect();
    show(&world, "before:", &xs);
    let mut data = xs.clone();
    ring::reduce_scatter_ring(&world, &mut data, Op::Sum);
    show(&world, "after the reduce-scatter (your ex 3.1):", &data);
    ring::allgather_ring(&world, &mut data);
    show(&world, "after the allgather (your ex 3.2):", &data);
    let want = reference::allreduce(&world, &xs, Op::Sum);
    let same = toolkit::lockstep::agree(&world, toolkit::compare::exact("sum", &data, &want));
    if rank == 0 {
        let verdict = same
            .as_ref()
            .map_or_else(|e| format!("NO: {e}"), |_| "yes".into());
        println!("equal to MPI_Allreduce: {verdict}");
    }
    // A short race on 1M f64 (8 MiB), 5 runs each, the slowest rank's mean.
    let big: Vec<f64> = (0..1 << 20).map(|i| (i % 97) as f64 * 0.25).collect();
    let mut times = Vec::new();
    for name in ["MPI_Allreduce", "your ring (ex 3.1 + 3.2)"] {
        world.barrier();
        let start = Instant::now();
        for _ in 0..5 {
            let out = match name {
                "MPI_Allreduce" => reference::allreduce(&world, &big, Op::Sum),
                _ => ch03::allreduce_ring(&world, &big, Op::Sum),
            };
            assert_eq!(out.len(), big.len());
        }
        let mine = start.elapsed().as_secs_f64() / 5.0;
        times.push((name, toolkit::report::Timing::over_ranks(&world, mine).max));
    }
    if rank == 0 {
        println!("\n1M f64 (8 MiB) sum over {size} ranks, slowest rank's mean of 5:");
        for (name, t) in times {
            println!("  {name:<26} {:8.2} ms", t * 1e3);
        }
    }
    same.unwrap_or_else(|e| panic!("the ring differs from MPI_Allreduce: {e}"));
}
