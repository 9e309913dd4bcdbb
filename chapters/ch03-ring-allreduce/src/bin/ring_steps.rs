//! Lab: your ring allreduce step by step, on a vector of 10 integers (not divisible by
//! the number of ranks), then a short race against MPI_Allreduce.
//!
//! Run: `make run CH=03` (your ex 3.1 and 3.2; `SOLUTION=1` for the answers; `NP=3`
//! for another ring). It first checks that ex 3.1 and 3.2 are written (if one is still a
//! `todo!()`, it says which and stops). Expect: the messages your code really sent, traced
//! as it ran (which chunk each rank sent to whom, step by step), every rank's vector
//! after the reduce-scatter (one chunk complete on each rank) and after the allgather
//! (all complete), `equal to MPI_Allreduce: yes`, and the times of both on 1M f64.

use ch03::ops::Op;
use ch03::{chunk_range, reference, ring};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use toolkit::trace::{self, Traced};

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

// ANCHOR: trace
/// Which chunk of `data` a traced send came from: its number, or -1 when the buffer is
/// not exactly one chunk of `data` (a copy, or a wrong range).
fn chunk_of(data: &[i64], p: usize, m: &Traced) -> i64 {
    let base = data.as_ptr() as usize;
    let elem = std::mem::size_of::<i64>();
    let Some(offset) = m.addr.checked_sub(base) else {
        return -1;
    };
    let range = offset / elem..offset / elem + m.bytes as usize / elem;
    (0..p)
        .find(|&k| offset % elem == 0 && chunk_range(LEN, p, k) == range)
        .map_or(-1, |k| k as i64)
}

/// Runs one phase of your ring with the message trace on; rank 0 prints the chunks each
/// rank really sent, step by step, and draws them under `target/workbook/`.
fn traced(
    world: &SimpleCommunicator,
    name: &str,
    file: &str,
    phase: impl FnOnce(&mut [i64]),
    data: &mut [i64],
) {
    let p = world.size() as usize;
    trace::start();
    phase(data);
    let log = trace::stop();
    let Some(logs) = trace::gather(world, &log, |m| chunk_of(data, p, m)) else {
        return;
    };
    let label = |mark: i64| match mark {
        -1 => "(not a chunk of the vector)".to_string(),
        k => format!("c{k}"),
    };
    trace::draw(name, "step", &logs, label, file);
}
// ANCHOR_END: trace

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    // Rank r holds 100·(r+1) + i: the sums show which ranks went into each element.
    let xs: Vec<i64> = (0..LEN as i64)
        .map(|i| 100 * (rank as i64 + 1) + i)
        .collect();
    let ready = toolkit::gate::unless_todo(&world, || {
        let mut data = xs.clone();
        ring::reduce_scatter_ring(&world, &mut data, Op::Sum);
        ring::allgather_ring(&world, &mut data);
    });
    if let Err(todo) = ready {
        if rank == 0 {
            println!(
                "ring_steps traces what your ring sends, so it needs ex 3.1 and 3.2 \
                 (src/ring.rs) first.\n`{todo}` is still a stub (todo!): finish it \
                 (make check CH=03 shows\nyour progress), then run make run CH=03 again."
            );
        }
        return;
    }
    if rank == 0 {
        let ranges: Vec<_> = (0..size).map(|i| chunk_range(LEN, size, i)).collect();
        println!(
            "{LEN} elements over {size} ranks: chunks c0..c{} = {ranges:?}\n",
            size - 1
        );
    }
    show(&world, "before:", &xs);
    let mut data = xs.clone();
    let reduce_scatter = |d: &mut [i64]| ring::reduce_scatter_ring(&world, d, Op::Sum);
    traced(
        &world,
        "reduce-scatter (ex 3.1)",
        "ch03-reduce-scatter.svg",
        reduce_scatter,
        &mut data,
    );
    show(&world, "after the reduce-scatter:", &data);
    let allgather = |d: &mut [i64]| ring::allgather_ring(&world, d);
    traced(
        &world,
        "allgather (ex 3.2)",
        "ch03-allgather.svg",
        allgather,
        &mut data,
    );
    show(&world, "after the allgather:", &data);
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
        println!("  {}", toolkit::report::oversubscription_note(size));
    }
    same.unwrap_or_else(|e| panic!("the ring differs from MPI_Allreduce: {e}"));
}
