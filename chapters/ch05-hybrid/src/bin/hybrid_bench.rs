//! Benchmark: the hybrid heat solver at every ranks x threads split of the cores, and the
//! threaded update alone, 2048 x 2048.
//!
//! Run: `make bench CH=05` (release, solutions). Started alone, it is the driver: it runs
//! itself under mpirun as 1 rank (Open MPI's default binding: one core), 1 rank unbound
//! (`OMPI_MCA_hwloc_base_binding_policy=none`) and 2 ranks, each with 1 to cores/ranks
//! threads. Expect: a table of ms/step per split, the threaded update's speedup from 1 to
//! 2 threads (target >= 1.7x on 2 cores), 1 rank x 2 threads against 2 ranks x 1 thread
//! (target: within 10%), and a plot `target/workbook/ch05-hybrid-bench.svg`.

use ch04::problem::{initial_block, Boundary, Problem};
use ch05::hybrid_solver::{pool, solve_hybrid, Parts, Variant};
use ch05::machine::{allowed_cpus, cpu_list};
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use toolkit::bench::{self, print_row};
use toolkit::launch::{under_mpirun, Job};
use toolkit::plot::{linear_svg, Series};
use toolkit::report::host_cores;
use toolkit::report::{print_and_save, write_file, Timing};

const N: usize = 2048;
const STEPS: usize = 20;
const REPEATS: usize = 3;

/// The grid's side, steps and repeats: the constants, or a small grid run once in a smoke
/// run (`toolkit::bench::smoke`).
fn sizes() -> (usize, usize, usize) {
    bench::sized((N, STEPS, REPEATS), (256, 2, 1))
}

#[derive(Tabled)]
struct Row {
    split: String,
    binding: String,
    #[tabled(rename = "CPUs of rank 0")]
    cpus: String,
    #[tabled(rename = "ms/step")]
    ms: String,
    #[tabled(rename = "exchange share")]
    share: String,
    #[tabled(rename = "update alone, ms")]
    update: String,
}

/// One split's figures, as rank 0 prints them (`ROW {json}`).
#[derive(Serialize, Deserialize)]
struct Measured {
    threads: usize,
    ms_step: f64,
    exchange_ms: f64,
    /// The threaded update alone: measured in the 1-rank runs only.
    update_ms: Option<f64>,
    /// The CPUs rank 0 may run on, as a list (`0-1`).
    cpus: String,
}

/// A rank: measure, and let rank 0 print a [`Measured`] per thread count.
fn rank_side() {
    let universe = toolkit::init();
    let world = universe.world();
    let size = world.size() as usize;
    let (n, steps, repeats) = sizes();
    let p = Problem {
        rows: n,
        cols: n,
        boundary: Boundary::Fixed,
    };
    for t in 1..=(host_cores() / size).max(1) {
        let (mut best, mut exch) = (f64::MAX, 0.0);
        for _ in 0..repeats {
            let run = solve_hybrid(&world, &p, t, Variant::Threaded, steps, &Parts::yours())
                .expect("the grid splits over a few ranks");
            let s = Timing::over_ranks(&world, run.seconds / steps as f64).max;
            if s < best {
                (best, exch) = (
                    s,
                    Timing::over_ranks(&world, run.exchange / steps as f64).max,
                );
            }
        }
        // The threaded update alone, one rank's whole grid, no MPI.
        let mut update = None;
        if size == 1 {
            let (src, mut dst) = (initial_block(&p, 0, 0, n, n), initial_block(&p, 0, 0, n, n));
            let pool = pool(t);
            let mut best = f64::MAX;
            for _ in 0..repeats * 10 {
                let start = Instant::now();
                ch05::hybrid_step::update_threaded(&pool, &src, &mut dst);
                best = best.min(start.elapsed().as_secs_f64());
            }
            update = Some(best * 1e3);
        }
        if world.rank() == 0 {
            print_row(&Measured {
                threads: t,
                ms_step: best * 1e3,
                exchange_ms: exch * 1e3,
                update_ms: update,
                cpus: cpu_list(&allowed_cpus()),
            });
        }
    }
}

fn main() {
    if under_mpirun() {
        return rank_side();
    }
    let exe = std::env::current_exe().expect("my own executable");
    let runs = [
        (1, "default (core)", None),
        (1, "none", Some("none")),
        (2, "default (core)", None),
    ];
    let (mut rows, mut series) = (vec![], vec![]);
    let (mut update1, mut update2, mut one_by_two, mut two_by_one) = (None, None, None, None);
    for (np, binding, policy) in runs {
        eprintln!("hybrid_bench: {np} rank(s), binding {binding}...");
        let mut job = Job::new(exe.to_string_lossy())
            .ranks(np)
            .timeout(Duration::from_secs(300));
        if let Some(p) = policy {
            job = job.env("OMPI_MCA_hwloc_base_binding_policy", p);
        }
        let out = job.run().unwrap_or_else(|e| panic!("{e}"));
        assert!(out.success(), "the {np}-rank run failed:\n{}", out.text());
        let lines: Vec<String> = out.rank_lines(0).into_iter().map(String::from).collect();
        let mut points = vec![];
        let measured =
            bench::rows::<Measured>(&lines).unwrap_or_else(|e| panic!("hybrid_bench: {e}"));
        for r in measured {
            let (t, ms, ex) = (r.threads, r.ms_step, r.exchange_ms);
            let up = r.update_ms.unwrap_or(f64::NAN);
            points.push((t as f64, ms));
            if policy.is_some() {
                if t == 1 {
                    update1 = Some(up);
                }
                if t == 2 {
                    update2 = Some(up);
                    one_by_two = Some(ms);
                }
            }
            if np == 2 && t == 1 {
                two_by_one = Some(ms);
            }
            rows.push(Row {
                split: format!("{np} rank(s) x {t} thread(s)"),
                binding: binding.into(),
                cpus: r.cpus,
                ms: format!("{ms:.2}"),
                share: format!("{:.0}%", 100.0 * ex / ms),
                update: if up.is_nan() {
                    "-".into()
                } else {
                    format!("{up:.2}")
                },
            });
        }
        series.push(Series {
            name: format!("{np} rank(s), binding {binding}"),
            points,
        });
    }
    let (n, steps, repeats) = sizes();
    println!(
        "heat solver {n} x {n}, {steps} steps (best of {repeats}; the update alone: best of {}), Threaded variant\n",
        repeats * 10
    );
    if let Err(e) = print_and_save(&rows, "ch05-hybrid-bench.csv") {
        println!("could not save the table: {e}");
    }
    if let (Some(a), Some(b)) = (update1, update2) {
        let s = a / b;
        let verdict = if s >= 1.7 { "met" } else { "NOT met" };
        println!("\nthreaded update, 1 -> 2 threads (unbound): {a:.2} -> {b:.2} ms = {s:.2}x (target >= 1.7x: {verdict})");
    }
    if let (Some(a), Some(b)) = (one_by_two, two_by_one) {
        let r = a / b;
        let verdict = if r <= 1.10 { "met" } else { "NOT met" };
        println!("1 rank x 2 threads (unbound) {a:.2} ms/step vs 2 ranks x 1 thread {b:.2} ms/step: ratio {r:.2} (target <= 1.10: {verdict})");
    }
    let svg = linear_svg(
        "hybrid heat solver 2048 x 2048",
        "threads per rank",
        "ms per step",
        &series,
    );
    match write_file("ch05-hybrid-bench.svg", &svg) {
        Ok(path) => println!("plot: {}", path.display()),
        Err(e) => println!("could not write the plot: {e}"),
    }
}
