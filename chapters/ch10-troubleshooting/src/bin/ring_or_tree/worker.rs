//! The lab's job (run by `main.rs` under mpirun with `--worker`): with `--ours`, the
//! link-timing matrix and chapter 3's ring and binomial tree; always MPI_Allreduce, as
//! the launch's settings force it. Rank 0 prints what it measured as lines for the
//! driver: `link A B ALPHA BETA` and `t LABEL BYTES SECONDS`.

use ch03::ops::Op;
use ch03::{allreduce_binomial_tree, allreduce_ring, reference};
use ch10::matrix::measure;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use toolkit::bench::sized;
use toolkit::gate::{stop_unfinished, unless_todo};

/// Ping-pongs per message size and pair in the matrix.
const TRIPS: usize = 20;

/// The vector sizes, bytes per rank: 1 KiB to 4 MiB, each twice the last (to 64 KiB in a
/// smoke run).
pub fn sizes() -> Vec<usize> {
    let top = sized(4 << 20, 64 << 10);
    (0..).map(|k| 1024 << k).take_while(|&b| b <= top).collect()
}

/// Seconds of one call: the shortest over the calls of the slowest rank's time (every
/// rank starts together, after a barrier; one call first, untimed, to warm up). The
/// shortest: other work on a busy machine only adds to a call.
fn time(world: &SimpleCommunicator, bytes: usize, run: impl Fn()) -> f64 {
    run();
    let calls = sized(((16usize << 20) / bytes).clamp(5, 41), 3);
    (0..calls)
        .map(|_| {
            world.barrier();
            let start = Instant::now();
            run();
            let mine = start.elapsed().as_secs_f64();
            let mut worst = 0.0f64;
            world.all_reduce_into(&mine, &mut worst, mpi::collective::SystemOperation::max());
            worst
        })
        .fold(f64::INFINITY, f64::min)
}

/// The job: see the module's doc.
pub fn run(ours: bool) {
    let universe = toolkit::init();
    let world = universe.world();
    let rank0 = world.rank() == 0;
    if ours {
        let tiny = vec![1.0f32; 3];
        let done = unless_todo(&world, || {
            allreduce_ring(&world, &tiny, Op::Sum);
            allreduce_binomial_tree(&world, &tiny, Op::Sum);
        });
        if let Err(task) = done {
            stop_unfinished(&world, "ring_or_tree", &task);
        }
        // A first pass, not kept, opens every pair's connection (TCP between nodes opens
        // on the first message, and a new connection starts slow).
        measure(&world, 1);
        for f in measure(&world, TRIPS) {
            if rank0 {
                println!("link {} {} {:e} {:e}", f.a, f.b, f.link.alpha, f.link.beta);
            }
        }
    }
    for bytes in sizes() {
        let xs: Vec<f32> = (0..bytes / 4).map(|i| (i % 97) as f32).collect();
        let report = |label: &str, secs: f64| {
            if rank0 {
                println!("t {label} {bytes} {secs:e}");
            }
        };
        if ours {
            report(
                "ring",
                time(&world, bytes, || drop(allreduce_ring(&world, &xs, Op::Sum))),
            );
            report(
                "tree",
                time(&world, bytes, || {
                    drop(allreduce_binomial_tree(&world, &xs, Op::Sum))
                }),
            );
        }
        report(
            "mpi",
            time(&world, bytes, || {
                drop(reference::allreduce(&world, &xs, Op::Sum))
            }),
        );
    }
}
