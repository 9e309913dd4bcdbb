//! Chapter 3 under criterion: the chunk reduction kernel of each element type (local),
//! and whole allreduces (MPI's and the segmented ring) driven from rank 0.
//!
//! Run: `cargo bench -p workbook-benches --features solution --bench ring_allreduce`
//! (`NP=2` for two ranks). The binary re-launches itself under mpirun (toolkit::init).
//! Rank 0 runs criterion; before each timed batch it broadcasts (algorithm, iterations),
//! and every other rank runs the same number of allreduces, so all stay in lockstep; a
//! command of 0 iterations ends the job. Expect the kernels at memory speed (GB/s) and
//! the allreduces in the range of the `sweep` benchmark (`make bench CH=03`).

use ch03::ops::{Elem, Op};
use ch03::{reference, segment_len, segmented};
use criterion::{BenchmarkId, Criterion, Throughput};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 2] = [4 << 10, 4 << 20];

fn kernel<T: Elem>(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("reduce_into {}", T::NAME));
    for bytes in SIZES {
        let n = bytes / std::mem::size_of::<T>();
        let mut acc: Vec<T> = (0..n).map(|i| T::from_f64((i % 13) as f64)).collect();
        let other = acc.clone();
        group.throughput(Throughput::Bytes(bytes as u64));
        for op in [Op::Sum, Op::Max, Op::AbsMax] {
            group.bench_function(BenchmarkId::new(format!("{op:?}"), bytes), |b| {
                b.iter(|| op.reduce_into(black_box(&mut acc), black_box(&other)))
            });
        }
    }
    group.finish();
}

/// Runs `iters` allreduces of `bytes` bytes with algorithm `alg` (0: MPI, 1: segmented
/// ring) on every rank; returns this rank's time.
fn allreduces(world: &SimpleCommunicator, alg: u64, bytes: u64, iters: u64) -> Duration {
    let xs = vec![1.0f32; bytes as usize / 4];
    world.barrier();
    let start = Instant::now();
    for _ in 0..iters {
        let out = match alg {
            0 => reference::allreduce(world, &xs, Op::Sum),
            _ => segmented::allreduce_ring_segmented(world, &xs, Op::Sum, segment_len::<f32>()),
        };
        black_box(out);
    }
    start.elapsed()
}

// ANCHOR: driven_from_rank_0
/// Rank 0: tell everyone what to run, then run it too and report its own time.
fn command(world: &SimpleCommunicator, mut cmd: [u64; 3]) -> Duration {
    world.process_at_rank(0).broadcast_into(&mut cmd[..]);
    allreduces(world, cmd[0], cmd[1], cmd[2])
}

/// The other ranks: follow rank 0's commands until it sends 0 iterations.
fn follow(world: &SimpleCommunicator) {
    loop {
        let mut cmd = [0u64; 3];
        world.process_at_rank(0).broadcast_into(&mut cmd[..]);
        if cmd[2] == 0 {
            return;
        }
        allreduces(world, cmd[0], cmd[1], cmd[2]);
    }
}
// ANCHOR_END: driven_from_rank_0

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    if world.rank() != 0 {
        follow(&world);
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    kernel::<i32>(&mut c);
    kernel::<i64>(&mut c);
    kernel::<f32>(&mut c);
    kernel::<f64>(&mut c);
    let mut group = c.benchmark_group(format!("allreduce f32 sum, {} ranks", world.size()));
    for bytes in SIZES {
        group.throughput(Throughput::Bytes(bytes as u64));
        for (alg, name) in [(0u64, "MPI_Allreduce"), (1, "segmented ring")] {
            group.bench_function(BenchmarkId::new(name, bytes), |b| {
                b.iter_custom(|iters| command(&world, [alg, bytes as u64, iters]))
            });
        }
    }
    group.finish();
    command(&world, [0, 0, 0]); // 0 iterations: the others stop
    c.final_summary();
}
