//! Lab: the hybrid heat solver (MPI between ranks, threads inside each): time per step
//! and the exchange's share at 1 to T threads per rank, both ways of running a step.
//!
//! Run: `make run CH=05 BIN=hybrid NP=1 SOLUTION=1` (NP=1 to 4; add
//! `ARGS`-style flags by running the binary: `--threads N`, `--oversubscribe`). With no
//! `--threads`, each rank gets the node's cores / its ranks. Refuses 0 threads, and
//! more threads than cores without `--oversubscribe`, in one line.
//! Expect: one row per (variant, threads): ms per step (the slowest rank's, best of 3) and the
//! share of it the main thread spent in the halo exchange; every run equal to the serial
//! solver bit for bit. (Overlapped: the exchange runs while the workers compute, so its
//! share is time hidden behind the update, not time lost.) A plot of ms/step against threads: `target/workbook/ch05-hybrid.svg`.
//! A lone rank is bound to one core by Open MPI: its threads share it, and the lab says so.

use ch04::problem::{solve_serial, Boundary, Problem};
use ch05::hybrid_solver::{solve_hybrid, Parts, Variant};
use ch05::levels::require;
use ch05::machine::{allowed_cpus, node_local, parse_thread_args, plan_threads};
use mpi::environment::Threading;
use mpi::traits::*;
use tabled::Tabled;
use toolkit::plot::{linear_svg, Series};
use toolkit::report::host_cores;
use toolkit::report::{print_and_save, write_file, Timing};

/// The plate: rows x columns of cells, and the steps of each run.
const PROBLEM: Problem = Problem {
    rows: 2048,
    cols: 2048,
    boundary: Boundary::Fixed,
};
const STEPS: usize = 20;
/// Each setting runs this many times; the table shows the fastest.
const REPEATS: usize = 3;

#[derive(Tabled)]
struct Row {
    variant: String,
    ranks: i32,
    threads: usize,
    #[tabled(rename = "ms/step")]
    ms: String,
    #[tabled(rename = "exchange share")]
    share: String,
    #[tabled(rename = "equals serial")]
    exact: &'static str,
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let say0 = |s: &str| {
        if rank == 0 {
            println!("{s}")
        }
    };
    let granted = mpi::environment::threading_support();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (_, local_size) = node_local(&world);
    let cores = host_cores();
    let env = std::env::var("THREADS").ok();
    // The same inputs on every rank of a node: every rank decides the same, refuses together.
    let threads = require(Threading::Funneled, granted)
        .and_then(|()| parse_thread_args(&args, env.as_deref()))
        .and_then(|a| plan_threads(a, local_size as usize, cores));
    let threads = match threads {
        Ok(t) => t,
        Err(why) => {
            say0(&format!("hybrid: {why}"));
            std::process::exit(2);
        }
    };
    say0(&format!(
        "{} x {} plate, {STEPS} steps (best of {REPEATS}), {size} rank(s), up to {threads} thread(s) per rank, {cores} \
         cores; granted {}",
        PROBLEM.rows,
        PROBLEM.cols,
        toolkit::job::level_name(granted)
    ));
    let cpus = allowed_cpus().len();
    let (few, mut any_few) = (i32::from(cpus < threads), 0i32);
    world.all_reduce_into(&few, &mut any_few, mpi::collective::SystemOperation::max());
    if any_few > 0 {
        say0(&format!(
            "note: a rank may run on {cpus} CPU(s) only (bound by mpirun): its threads share \
             them. Unbind: OMPI_MCA_hwloc_base_binding_policy=none (Open MPI)"
        ));
    }
    let (serial, _) = solve_serial(&PROBLEM, STEPS);
    let (mut rows, mut series) = (vec![], vec![]);
    for variant in [Variant::Threaded, Variant::Overlapped] {
        let mut points = vec![];
        for t in 1..=threads {
            let (mut step, mut exch, mut last) = (f64::MAX, 0.0, None);
            for _ in 0..REPEATS {
                let run = solve_hybrid(&world, &PROBLEM, t, variant, STEPS, &Parts::yours())
                    .unwrap_or_else(|why| panic!("{why}"));
                let s = Timing::over_ranks(&world, run.seconds / STEPS as f64).max;
                if s < step {
                    step = s;
                    exch = Timing::over_ranks(&world, run.exchange / STEPS as f64).max;
                }
                last = Some(run);
            }
            let run = last.expect("REPEATS >= 1");
            let b = &run.block;
            let mine = b.rows.clone().enumerate().all(|(r, gi)| {
                let want = &serial.owned_row(gi)[b.cols.clone()];
                b.src
                    .owned_row(r)
                    .iter()
                    .zip(want)
                    .all(|(x, y)| x.to_bits() == y.to_bits())
            });
            let exact =
                toolkit::lockstep::agree(&world, if mine { Ok(()) } else { Err(String::new()) });
            points.push((t as f64, step * 1e3));
            rows.push(Row {
                variant: format!("{variant:?}"),
                ranks: size,
                threads: t,
                ms: format!("{:.2}", step * 1e3),
                share: format!("{:.0}%", 100.0 * exch / step),
                exact: if exact.is_ok() { "bit for bit" } else { "NO" },
            });
        }
        series.push(Series {
            name: format!("{variant:?}, {size} rank(s)"),
            points,
        });
    }
    if rank != 0 {
        return;
    }
    println!();
    if let Err(e) = print_and_save(&rows, "ch05-hybrid.csv") {
        println!("could not save the table: {e}");
    }
    let title = format!(
        "hybrid heat solver, {} x {}, {size} rank(s)",
        PROBLEM.rows, PROBLEM.cols
    );
    let svg = linear_svg(&title, "threads per rank", "ms per step", &series);
    match write_file("ch05-hybrid.svg", &svg) {
        Ok(path) => println!("plot: {}", path.display()),
        Err(e) => println!("could not write the plot: {e}"),
    }
}
