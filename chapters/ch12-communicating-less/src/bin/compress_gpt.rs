//! Lab: chapter 9's GPT trained data parallel on the book's pages (dp = the ranks, tp 1,
//! chapter 9's model and Adam), its gradients summed five ways: the dense MPI_Allreduce,
//! ex 12.3's top-k at 10% and at 1% with error feedback, top-k at 1% without it, and
//! ex 12.4's 8-bit codes with error feedback. Every method starts from the same
//! parameters and sees the same batches. Per method: the bytes one rank hands to the
//! exchange per step, counted, and their ratio to the dense sum's; the time per step and
//! in the sum (the slowest rank's); the training loss of the last 50 steps and chapter 9's
//! validation loss after the same number of steps.
//!
//! Run: `make run CH=12 BIN=compress_gpt` (4 ranks; `SOLUTION=1` for the answers;
//! `ARGS='--steps 1000'`, `ARGS=--help` for the flags). A bad flag is refused in one line
//! before MPI starts. It needs chapter 9's GPT (ex 9.1 to 9.6), ex 12.3 and 12.4; until
//! they are written it says which to finish.

use ch09::corpus::Corpus;
use ch12::compressed::{Scheme, COMPRESSED};
use ch12::gpt_run::{global_batch, help, parse, train, GptRun};
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// One row of the table.
fn row(scheme: Scheme, run: &GptRun, dense_bytes: usize) -> String {
    format!(
        "{:<24}{:>10}{:>9.1}x{:>10.2}{:>10.2}{:>12.3}{:>12.3}",
        scheme.name(),
        run.bytes_per_step,
        dense_bytes as f64 / run.bytes_per_step.max(1) as f64,
        run.step_secs * 1e3,
        run.sync_secs * 1e3,
        run.train_loss,
        run.valid_loss
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{}", help());
    }
    let f = parse(&args).unwrap_or_else(|why| {
        eprintln!("compress_gpt: {why}");
        std::process::exit(2);
    });
    let corpus = Corpus::shipped().unwrap_or_else(|why| {
        eprintln!("compress_gpt: {why}");
        std::process::exit(2);
    });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    tch::set_num_threads(1);
    say(&format!(
        "compress_gpt: {p} rank(s), chapter 9's GPT (2 blocks, h = 96, 6 heads, context 64, \
         f32, Adam lr 0.003) at dp {p} x tp 1, global batch {}, {} steps, seed {}, 1 thread \
         per rank on {} core(s)",
        global_batch(p),
        f.steps,
        f.seed,
        toolkit::report::host_cores()
    ));
    let mut dense_bytes = 0;
    // The dense sum first, then the compressed ones.
    let schemes = std::iter::once(Scheme::Dense).chain(COMPRESSED);
    for (i, scheme) in schemes.enumerate() {
        let run = match unless_todo(&world, || train(&world, &f, &corpus, scheme)) {
            Err(task) => toolkit::gate::stop_unfinished(&world, "compress_gpt", &task),
            Ok(Err(why)) => {
                say(&format!("compress_gpt: {why}"));
                std::process::exit(1);
            }
            Ok(Ok(run)) => run,
        };
        if i == 0 {
            say(&format!("gradient: {} f32 per step\n", run.params));
            say(&format!(
                "{:<24}{:>10}{:>10}{:>10}{:>10}{:>12}{:>12}",
                "method", "bytes", "vs dense", "ms/step", "ms sum", "train loss", "valid loss"
            ));
            dense_bytes = run.bytes_per_step;
        }
        say(&row(scheme, &run, dense_bytes));
    }
    say(
        "bytes: what one rank hands to the exchange per step, counted (top-k: its count, \
         indices and values; 8-bit: its scales and codes); train loss: the last 50 steps'",
    );
}
