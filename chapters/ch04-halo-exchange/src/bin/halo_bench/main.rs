//! Benchmark: the three halo exchanges at 1, 2 and 4 ranks, strong and weak scaling, and
//! the update's memory bandwidth against a large memcpy measured in the same run.
//!
//! Run: `make bench CH=04` (release build, the solutions; `-- --runs N` repeats the whole
//! measurement N times and ends with min / median / max of the targets' figures; the
//! table is the first run's). Started without mpirun this
//! program is the driver: it runs itself under mpirun at NP = 1, 2, 4
//! (`toolkit::bench`), whose 1-rank run also measures the copy bandwidth, and collects
//! one row per (NP, grid, variant).
//! Expect: a table per run with time per step, the update's bandwidth (16 bytes per cell
//! per step: read `src` once, write `dst` once, over the compute time), the share of
//! communication, the strong- and weak-scaling efficiency; `target/workbook/
//! ch04-halo-bench.csv` and two plots (`ch04-strong.svg`, `ch04-weak.svg`). More ranks
//! than cores (NP=4 on 2 cores) take turns: the figures say so rather than hide it.

use ch04::problem::{Boundary, Problem};
use ch04::solver::{solve, Parts, VARIANTS};
use ch04::stencil::{set_kernel, Kernel};
use ch04::topology::dims_create;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tabled::Tabled;
use toolkit::bench::{at_rank_counts, print_row, print_tagged, rows, tagged_rows, unbind_ranks};
use toolkit::plot::{loglog_svg, Series};
use toolkit::report::{print_and_save, write_file, Timing};

mod limits;
mod targets;

/// Global N x N grids for strong scaling.
pub const STRONG: [usize; 4] = [128, 256, 1024, 2048];
/// Cells per rank along each axis for weak scaling.
const WEAK: usize = 1024;
/// Cell updates per rank per trial (sets the steps), and trials (the best counts).
const WORK: f64 = 6e7;
const TRIALS: usize = 5;
/// Rank counts of the sweep.
const NPS: [u32; 3] = [1, 2, 4];

/// One measurement, as printed by a child's rank 0 (`ROW {json}`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sample {
    pub np: u32,
    pub kind: String,
    pub rows: usize,
    pub cols: usize,
    pub variant: String,
    pub steps: usize,
    pub step_s: f64,
    pub compute_s: f64,
    pub comm_s: f64,
}

/// The 1-rank run's reference bandwidths, bytes/s (`REF {json}`).
#[derive(Serialize, Deserialize)]
struct Reference {
    copy: f64,
    scale: f64,
}

/// One kernel's seconds per step, largest grid and smallest (`KERNEL {json}`).
#[derive(Serialize, Deserialize)]
struct KernelTime {
    name: String,
    through_memory: f64,
    in_cache: f64,
}

/// Runs every (grid, variant) at this job's size; rank 0 prints a `ROW {json}` per one.
fn child() {
    let universe = toolkit::init();
    let world = universe.world();
    let size = world.size();
    let d = dims_create(size);
    let mut grids: Vec<(&str, usize, usize)> = STRONG.iter().map(|&n| ("strong", n, n)).collect();
    grids.push(("weak", WEAK * d[0] as usize, WEAK * d[1] as usize));
    let parts = Parts::yours();
    if size == 1 {
        // measured here, right before the 1-rank runs, under the same load
        let (copy, scale) = limits::reference_bandwidths();
        print_tagged("REF", &Reference { copy, scale });
        kernels(&world, &parts);
    }
    for (kind, rows, cols) in grids {
        let p = Problem {
            rows,
            cols,
            boundary: Boundary::Fixed,
        };
        let steps = (WORK / (rows * cols / size as usize) as f64).clamp(10.0, 2000.0) as usize;
        let steps = toolkit::bench::sized(steps, 2);
        let _ = solve(&world, &p, VARIANTS[2], 2, 2, 0.0, &parts); // warm-up
        for variant in VARIANTS {
            let mut best = (f64::INFINITY, 0.0, 0.0);
            for _ in 0..toolkit::bench::sized(TRIALS, 1) {
                let run = solve(&world, &p, variant, steps, steps, 0.0, &parts)
                    .unwrap_or_else(|why| panic!("{why}"));
                let per = |s: f64| Timing::over_ranks(&world, s / steps as f64).max;
                let t = (per(run.compute + run.comm), per(run.compute), per(run.comm));
                if t.0 < best.0 {
                    best = t;
                }
            }
            if world.rank() == 0 {
                print_row(&Sample {
                    np: size as u32,
                    kind: kind.into(),
                    rows,
                    cols,
                    variant: format!("{variant:?}"),
                    steps,
                    step_s: best.0,
                    compute_s: best.1,
                    comm_s: best.2,
                });
            }
        }
    }
}

/// Each kernel at 1 rank on the largest grid and on the smallest (the blocking variant),
/// best of [`TRIALS`]: printed as `KERNEL {json}` ([`KernelTime`]).
fn kernels(world: &mpi::topology::SimpleCommunicator, parts: &Parts) {
    // the largest grid (through memory) and the smallest (its two fields fit in L2)
    let (big, small) = (STRONG[STRONG.len() - 1], STRONG[0]);
    let per_step = |kernel: Kernel, n: usize| {
        let p = Problem {
            rows: n,
            cols: n,
            boundary: Boundary::Fixed,
        };
        let steps = (WORK / (n * n) as f64).clamp(10.0, 2000.0) as usize;
        let steps = toolkit::bench::sized(steps, 2);
        set_kernel(kernel);
        (0..toolkit::bench::sized(TRIALS, 1))
            .map(|_| {
                let run = solve(world, &p, VARIANTS[0], steps, steps, 0.0, parts)
                    .unwrap_or_else(|why| panic!("{why}"));
                run.compute / steps as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    for kernel in [Kernel::Simple, Kernel::Wide, Kernel::Streaming] {
        let (through_memory, in_cache) = (per_step(kernel, big), per_step(kernel, small));
        let name = format!("{kernel:?}");
        let row = KernelTime {
            name,
            through_memory,
            in_cache,
        };
        print_tagged("KERNEL", &row);
    }
    set_kernel(Kernel::Auto);
}

#[derive(Tabled)]
struct Row {
    np: u32,
    grid: String,
    variant: String,
    steps: usize,
    #[tabled(rename = "µs/step")]
    step: String,
    #[tabled(rename = "compute µs")]
    compute: String,
    #[tabled(rename = "update GB/s")]
    bandwidth: String,
    #[tabled(rename = "comm share")]
    share: String,
    #[tabled(rename = "efficiency")]
    efficiency: String,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        return child();
    }
    println!(
        "ranks not bound to cores ({}): this machine is shared",
        unbind_ranks()
    );
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .map_or(1, |n| n.parse().expect("--runs N: a number of runs"));
    let mut figures = vec![];
    for run in 0..runs.max(1) {
        let cores = toolkit::report::host_cores();
        let load = toolkit::bench::load_average();
        println!(
            "run {} of {runs}: load average {load:.1} on {cores} cores",
            run + 1
        );
        let (mut samples, mut refs, mut kernels) = (vec![], (f64::NAN, f64::NAN), vec![]);
        for (_, lines) in at_rank_counts(&NPS, Duration::from_secs(600)) {
            samples.extend(ok(rows::<Sample>(&lines)));
            for r in ok(tagged_rows::<Reference>(&lines, "REF")) {
                refs = (r.copy, r.scale);
            }
            for k in ok(tagged_rows::<KernelTime>(&lines, "KERNEL")) {
                kernels.push((k.name, k.through_memory, k.in_cache));
            }
        }
        if run == 0 {
            report(&samples, refs);
        }
        figures.push(targets::of_run(&samples, refs, &kernels));
    }
    if runs > 1 {
        targets::over_runs(&figures);
    }
}

/// The records of a run, or a panic that names the bad line.
fn ok<T>(records: Result<Vec<T>, String>) -> Vec<T> {
    records.unwrap_or_else(|e| panic!("halo_bench: {e}"))
}

/// The table, the CSV and the plots, from every sample.
fn report(samples: &[Sample], (copy, scale): (f64, f64)) {
    let base = |s: &Sample| {
        let same = |b: &&Sample| b.np == 1 && b.kind == s.kind && b.variant == s.variant;
        samples
            .iter()
            .filter(same)
            .find(|b| s.kind == "weak" || b.rows == s.rows)
    };
    let mut rows = vec![];
    for s in samples {
        let bandwidth = 16.0 * (s.rows * s.cols) as f64 / s.compute_s;
        let share = s.comm_s / s.step_s;
        let eff = base(s).map_or(f64::NAN, |b| {
            let ideal = if s.kind == "weak" {
                b.step_s
            } else {
                b.step_s / s.np as f64
            };
            ideal / s.step_s
        });
        rows.push(Row {
            np: s.np,
            grid: format!("{} {}x{}", s.kind, s.rows, s.cols),
            variant: s.variant.clone(),
            steps: s.steps,
            step: format!("{:.1}", s.step_s * 1e6),
            compute: format!("{:.1}", s.compute_s * 1e6),
            bandwidth: format!("{:.1}", bandwidth / 1e9),
            share: format!("{:.0}%", 100.0 * share),
            efficiency: format!("{:.2}", eff),
        });
    }
    println!(
        "reference bandwidths at 1 rank, 256 MiB arrays, read + write counted: copy {:.1} GB/s, \
         scale loop {:.1} GB/s",
        copy / 1e9,
        scale / 1e9
    );
    let csv = print_and_save(&rows, "ch04-halo-bench.csv");
    let find = |np: u32, kind: &str, n: usize, v: &str| {
        let hit = |s: &&Sample| s.np == np && s.kind == kind && s.variant == v;
        samples
            .iter()
            .filter(hit)
            .find(|s| kind == "weak" || s.rows == n)
    };
    let big = STRONG[STRONG.len() - 1];
    let series = |kind: &str, n: usize| -> Vec<Series> {
        ["Blocking", "Sendrecv", "Overlapped"]
            .iter()
            .map(|v| Series {
                name: v.to_string(),
                points: NPS
                    .iter()
                    .filter_map(|&np| find(np, kind, n, v).map(|s| (np as f64, s.step_s * 1e6)))
                    .collect(),
            })
            .collect()
    };
    let strong = loglog_svg(
        &format!("strong scaling, {big} x {big} grid"),
        "ranks",
        "µs per step",
        &series("strong", big),
    );
    let weak = loglog_svg(
        &format!("weak scaling, {WEAK} x {WEAK} cells per rank"),
        "ranks",
        "µs per step",
        &series("weak", 0),
    );
    let svgs = [("ch04-strong.svg", &strong), ("ch04-weak.svg", &weak)];
    let written = svgs.map(|(name, text)| (name, write_file(name, text)));
    for (name, result) in [("ch04-halo-bench.csv", csv)].into_iter().chain(written) {
        match result {
            Ok(path) => println!("wrote {}", path.display()),
            Err(e) => println!("could not write {name}: {e}"),
        }
    }
}
