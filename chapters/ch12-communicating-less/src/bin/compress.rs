//! Lab: data-parallel gradient descent on a least-squares problem with the gradients
//! summed four ways: MPI_Allreduce of the whole gradient, ex 12.3's top-k at 10% and at
//! 1% with error feedback, and top-k at 1% without it (the residual dropped after each
//! step). Per variant: the bytes one rank contributes per step, counted, next to the
//! formula; the loss at a few steps; the time per step (the slowest rank's).
//!
//! Run: `make run CH=12 BIN=compress` (4 ranks; `SOLUTION=1` for the answers; `NP=3` for
//! another job; `ARGS='--steps 1000'`, `ARGS=--help` for the flags). The data are made
//! from `--seed`, row by row, so every rank count trains the same problem. A bad flag
//! (`--steps 0`) is refused in one line before MPI starts. It needs ex 12.3; until it is
//! written it says so.

use ch12::compress_flags::{help, parse};
use ch12::lsq::{train, Run, Sync};
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// The variants, named as the table prints them.
const VARIANTS: [(&str, Sync); 4] = [
    ("dense allreduce", Sync::Dense),
    (
        "top-k 10% + feedback",
        Sync::TopK {
            percent: 10.0,
            feedback: true,
        },
    ),
    (
        "top-k 1% + feedback",
        Sync::TopK {
            percent: 1.0,
            feedback: true,
        },
    ),
    (
        "top-k 1%, no feedback",
        Sync::TopK {
            percent: 1.0,
            feedback: false,
        },
    ),
];

/// The bytes per step and rank by the formula: 4·dim dense, 4 + 8·k for top-k.
fn formula(sync: Sync, dim: usize) -> String {
    match sync {
        Sync::Dense => format!("4·{dim} = {}", 4 * dim),
        Sync::TopK { percent, .. } => {
            let k = ((percent / 100.0 * dim as f64).ceil() as usize).min(dim);
            format!("4+8·{k} = {}", 4 + 8 * k)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{}", help());
    }
    let f = parse(&args).unwrap_or_else(|why| {
        eprintln!("compress: {why}");
        std::process::exit(2);
    });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let problem = f.problem.problem(rank, p);
    say(&format!(
        "compress: {p} rank(s), least squares, {} rows of {} features (seed {}), {} steps, \
         lr {}",
        f.problem.rows, f.problem.dim, f.problem.seed, f.steps, f.problem.lr
    ));
    let marks = [0, f.steps / 10, f.steps / 3, f.steps];
    let heads: Vec<String> = marks.iter().map(|m| format!("loss@{m}")).collect();
    say(&format!(
        "{:<22}{:>10}{:>14}{:>11}{:>11}{:>11}{:>11}{:>10}",
        "variant", "bytes", "formula", heads[0], heads[1], heads[2], heads[3], "µs/step"
    ));
    for (name, sync) in VARIANTS {
        let run = unless_todo(&world, || {
            train(&world, &problem, sync, f.steps, f.problem.lr)
        });
        let run: Run = match run {
            Err(task) => toolkit::gate::stop_unfinished(&world, "compress", &task),
            Ok(Err(why)) => return say(&format!("compress: {why}")),
            Ok(Ok(run)) => run,
        };
        let losses: Vec<String> = marks
            .iter()
            .map(|&m| format!("{:>11.3e}", run.losses[m]))
            .collect();
        say(&format!(
            "{name:<22}{:>10}{:>14}{}{:>10.1}",
            run.bytes_per_step,
            formula(sync, f.problem.dim),
            losses.concat(),
            run.secs_per_step * 1e6
        ));
    }
    say("bytes: what one rank contributes per step (top-k: its count, indices and values)");
}
