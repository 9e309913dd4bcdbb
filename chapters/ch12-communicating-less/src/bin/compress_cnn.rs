//! Lab: chapter 6's CNN trained on the shipped digits by chapter 6's trainer, its
//! gradients summed six ways: the dense MPI_Allreduce, ex 12.1's hierarchical allreduce
//! (two nodes of ranks in blocks), ex 12.3's top-k at 10% and at 1% with error feedback,
//! top-k at 1% without it, and ex 12.4's 8-bit codes with error feedback; then not summed
//! at all: local SGD, the parameters averaged every 4 steps by ex 12.5 (each rank's
//! momentum stays its own). Every method starts from the same parameters and sees the same batches in
//! the same order. Per method: the bytes one rank hands to the exchange per step,
//! counted, and their ratio to the dense sum's; the time per step and in the sync (the
//! slowest rank's); chapter 6's test loss and accuracy after the same number of steps.
//!
//! Run: `make run CH=12 BIN=compress_cnn` (4 ranks; `SOLUTION=1` for the answers;
//! `ARGS='--steps 600'`, `ARGS=--help` for the flags). A bad flag, or a global batch
//! that the ranks do not divide, is refused in one line before MPI starts. On the two-node
//! namespace cluster (`CLUSTER=netns`, as root) the blocks are the real nodes. It needs
//! chapter 6's trainer (ex 6.2 to 6.5), ex 12.1, 12.3, 12.4 and 12.5; until they are written it
//! says which to finish.

use ch12::cnn_flags::{help, parse};
use ch12::cnn_run::{config, train, CnnRun};
use ch12::compressed::{Scheme, COMPRESSED};
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// The methods, in the table's order: the dense sum, the leaders, the compressed sums,
/// local SGD.
fn schemes() -> impl Iterator<Item = Scheme> {
    let first = [Scheme::Dense, Scheme::Leaders];
    first
        .into_iter()
        .chain(COMPRESSED)
        .chain([Scheme::LocalSgd { every: 4 }])
}

/// One row of the table.
fn row(scheme: Scheme, run: &CnnRun, dense_bytes: Option<usize>) -> String {
    let ratio = match dense_bytes {
        Some(d) if run.bytes_per_step > 0 => {
            format!("{:.1}x", d as f64 / run.bytes_per_step as f64)
        }
        _ => "-".into(),
    };
    format!(
        "{:<24}{:>10}{:>10}{:>10.2}{:>10.2}{:>11.3}{:>10.1}",
        scheme.name(),
        run.bytes_per_step,
        ratio,
        run.step_secs * 1e3,
        run.sync_secs * 1e3,
        run.test_loss,
        run.test_acc
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{}", help());
    }
    // Bad flags, and a batch the ranks do not divide: one line, before MPI starts.
    let f = parse(&args)
        .and_then(|f| {
            let ranks = ch06::ranks_from_env();
            ch06::config::check(&config(&f, ranks), ranks).map(|()| f)
        })
        .unwrap_or_else(|why| {
            eprintln!("compress_cnn: {why}");
            std::process::exit(2);
        });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size());
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    say(&format!(
        "compress_cnn: {p} rank(s), chapter 6's CNN on the digits, {} steps, global batch {}, \
         lr {}, seed {}, one gradient bucket, 1 thread per rank on {} core(s)",
        f.steps,
        f.global_batch(p as usize),
        f.lr,
        f.seed,
        toolkit::report::host_cores()
    ));
    let mut dense_bytes = None;
    for (i, scheme) in schemes().enumerate() {
        let run = match unless_todo(&world, || train(&world, &f, scheme)) {
            Err(task) => toolkit::gate::stop_unfinished(&world, "compress_cnn", &task),
            Ok(Err(why)) => {
                say(&format!("compress_cnn: {why}"));
                std::process::exit(1);
            }
            Ok(Ok(run)) => run,
        };
        if i == 0 {
            say(&format!("gradient: {} f32 per step\n", run.params));
            say(&format!(
                "{:<24}{:>10}{:>10}{:>10}{:>10}{:>11}{:>10}",
                "method", "bytes", "vs dense", "ms/step", "ms sync", "test loss", "test acc%"
            ));
            dense_bytes = Some(run.bytes_per_step);
        }
        say(&row(scheme, &run, dense_bytes));
    }
    say(
        "bytes: what one rank hands to the exchange per step, counted (top-k: its count, \
         indices and values; 8-bit: its scales and codes; local SGD: the parameters, once \
         every H steps); sync: the gradient sum, or local SGD's averages",
    );
    if p == 1 {
        say("one rank: chapter 6's trainer skips the sync, so every method trains alike");
    }
}
