//! Benchmark: every allreduce of the chapter against MPI_Allreduce, from 8 B to 64 MiB,
//! printed nccl-tests style, with the cost model's prediction next to each time.
//!
//! Run: `make bench CH=03` (NP=4 by default; `NP=2 make bench CH=03` for two ranks), or
//! `cargo run --release -p ch03-ring-allreduce --features solution --bin sweep --
//! [--type f32|f64|i32|i64] [--op sum|max|min|absmax] [--min-bytes N] [--max-bytes N]
//! [--runs N] [--with tree,rabenseifner,dtree]`. With `--runs N` the whole sweep runs N
//! times (the table once), and the last lines give min / median / max of the targets'
//! figures over the runs.
//! Expect one row per size and algorithm: time (us, the median run's slowest rank), algbw =
//! bytes / time, busbw = algbw·2(p-1)/p, #wrong (elements differing from MPI's result,
//! over every timed run and rank: 0), and the time the cost model predicts with the
//! regime of that size (calibrated first, in the same run: the `# calibration` lines).
//! The `#` lines at the end: the model's error per size for the ring and recursive
//! doubling, the share of sizes where ex 3.5 picks the measured fastest, and where the
//! ring's time goes at 8 MiB against the ping-pong peak and memcpy ([`summary`]).
//! Writes `target/workbook/ch03-sweep.csv`, `ch03-busbw.svg` and `ch03-model-npP.svg`.
//! Under two minutes at NP=4.

use ch03::cost::{calibrate, calibrate_at, median_over_job, predict, Algorithm, Machine, LADDER};
use ch03::ops::{Elem, Op};
use ch03::{double_tree, doubling, rabenseifner, reference, segmented};
use limits::{memcpy_bandwidth, pingpong_peak, print_machine};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::borrow::Cow;
use std::time::Instant;
use tabled::Tabled;
use toolkit::bench::arg;
use toolkit::compare::reduction_errors;

/// One row of the table, printed as it is measured and saved in the CSV; `alg == None`
/// is the size-based choice (ex 3.5).
#[derive(Tabled)]
struct Row {
    #[tabled(rename = "size(B)")]
    bytes: usize,
    count: usize,
    #[tabled(rename = "type")]
    elem: &'static str,
    #[tabled(display_with = "lowercase")]
    op: Op,
    #[tabled(rename = "algorithm", display_with = "name")]
    alg: Option<Algorithm>,
    #[tabled(rename = "time(us)", display_with = "micros")]
    seconds: f64,
    #[tabled(display_with = "three")]
    algbw: f64,
    #[tabled(display_with = "three")]
    busbw: f64,
    #[tabled(rename = "#wrong")]
    wrong: usize,
    #[tabled(rename = "model(us)", display_with = "micros")]
    predicted: f64,
    #[tabled(rename = "model%", display_with = "percent")]
    model_error: f64,
}

fn name(alg: &Option<Algorithm>) -> &'static str {
    alg.map_or("auto (ex 3.5)", Algorithm::name)
}
fn lowercase(op: &Op) -> String {
    format!("{op:?}").to_lowercase()
}
fn micros(seconds: &f64) -> String {
    format!("{:.1}", seconds * 1e6)
}
fn three(x: &f64) -> String {
    format!("{x:.3}")
}
fn percent(x: &f64) -> String {
    format!("{x:+.0}")
}

/// One line of the nccl-tests style table: `fields` right-aligned in fixed widths.
fn aligned(fields: Vec<Cow<'_, str>>) -> String {
    const WIDTHS: [usize; 11] = [10, 9, 4, 6, 15, 11, 8, 8, 7, 11, 6];
    let cells: Vec<String> = (fields.iter().zip(WIDTHS))
        .map(|(f, w)| format!("{f:>w$}"))
        .collect();
    cells.join(" ")
}

fn bytes_arg(flag: &str, default: usize) -> usize {
    let v = arg(flag, &default.to_string());
    v.parse()
        .unwrap_or_else(|_| panic!("{flag} {v}: not a number of bytes"))
}

mod limits;
mod summary;

/// Runs `alg` once.
fn run<T: Elem>(
    w: &SimpleCommunicator,
    alg: Option<Algorithm>,
    xs: &[T],
    op: Op,
    m: &Machine,
) -> Vec<T> {
    match alg {
        Some(Algorithm::Mpi) => reference::allreduce(w, xs, op),
        Some(Algorithm::Ring) => ch03::allreduce_ring(w, xs, op),
        Some(Algorithm::SegmentedRing) => {
            segmented::allreduce_ring_segmented(w, xs, op, ch03::segment_len::<T>())
        }
        Some(Algorithm::RecursiveDoubling) => doubling::allreduce_recursive_doubling(w, xs, op),
        Some(Algorithm::Naive) => reference::allreduce_naive(w, xs, op),
        Some(Algorithm::BinomialTree) => ch03::allreduce_binomial_tree(w, xs, op),
        Some(Algorithm::Rabenseifner) => rabenseifner::allreduce_rabenseifner(w, xs, op),
        Some(Algorithm::DoubleTree) => {
            double_tree::allreduce_double_tree(w, xs, op, ch03::segment_len::<T>())
        }
        None => ch03::allreduce_auto(w, xs, op, m),
    }
}

// ANCHOR: measure
/// Times `iters` runs of `alg` (a barrier before each; one untimed warm-up), checks every
/// result, and returns (the median over runs of the slowest rank's seconds, wrong
/// elements over all ranks).
fn measure<T: Elem>(
    w: &SimpleCommunicator,
    alg: Option<Algorithm>,
    xs: &[T],
    (want, abs): (&[T], &[f64]),
    op: Op,
    m: &Machine,
    iters: usize,
) -> (f64, usize) {
    // Exact, except float sums: within (p-1)·ε·Σ|x| of MPI's (toolkit::compare).
    let p = w.size() as usize;
    let mut bad = reduction_errors(op, &run(w, alg, xs, op, m), want, abs, p);
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        w.barrier();
        let start = Instant::now();
        let out = run(w, alg, xs, op, m);
        times.push(start.elapsed().as_secs_f64());
        bad += reduction_errors(op, &out, want, abs, p);
    }
    let mut all_bad = 0u64;
    w.all_reduce_into(&(bad as u64), &mut all_bad, SystemOperation::sum());
    (median_over_job(w, &times), all_bad as usize)
}
// ANCHOR_END: measure

/// One sweep over every size and algorithm; prints the table only when `table`.
/// Returns the run's figures (on rank 0; default elsewhere).
fn sweep<T: Elem>(w: &SimpleCommunicator, op: Op, table: bool) -> summary::Outcome {
    let (rank, p) = (w.rank() as usize, w.size() as usize);
    let (lo, hi) = (
        bytes_arg("--min-bytes", 8),
        bytes_arg("--max-bytes", toolkit::bench::sized(64 << 20, 256 << 10)),
    );
    let pingpong = pingpong_peak(w);
    let mut machine = calibrate(w);
    let memcpy = memcpy_bandwidth(w, 64 << 20);
    let mut sizes: Vec<usize> = (0..)
        .map(|k| lo << (2 * k))
        .take_while(|&b| b < hi)
        .collect();
    sizes.push(hi);
    let algs: Vec<Option<Algorithm>> = Algorithm::ALL
        .iter()
        .chain(Algorithm::from_flags(&arg("--with", "")).iter())
        .copied()
        .map(Some)
        .chain([None])
        .collect();
    if rank == 0 {
        let binding = std::env::var("OMPI_MCA_hwloc_base_binding_policy").unwrap_or_default();
        let cores = toolkit::report::host_cores();
        println!(
            "# {p} ranks, {} {op:?}, binding policy: {binding}; load average {:.1} on {cores} cores",
            T::NAME,
            toolkit::bench::load_average()
        );
        if table {
            println!("{}", aligned(Row::headers()));
        }
    }
    let mut rows = Vec::new();
    for &bytes in &sizes {
        let n = (bytes / std::mem::size_of::<T>()).max(1);
        let xs: Vec<T> = (0..n)
            .map(|i| T::from_f64(((i * 7 + rank * 13) % 97) as f64 - 48.0))
            .collect();
        let want = reference::allreduce(w, &xs, op);
        let mine_abs: Vec<f64> = xs.iter().map(|x| x.to_f64().abs()).collect();
        let mut abs = vec![0.0; n];
        w.all_reduce_into(&mine_abs[..], &mut abs[..], SystemOperation::sum());
        let iters = toolkit::bench::sized(((64 << 20) / bytes.max(1)).clamp(9, 200), 2);
        // the rung this size uses, measured again now, under the same load
        let needed: Vec<usize> = [bytes].into_iter().filter(|b| LADDER.contains(b)).collect();
        for rung in calibrate_at(w, &needed) {
            machine.update(rung);
        }
        for &alg in &algs {
            let (seconds, wrong) = measure(w, alg, &xs, (&want, &abs), op, &machine, iters);
            let bytes = n * std::mem::size_of::<T>();
            let algbw = bytes as f64 / seconds / 1e9;
            let busbw = algbw * 2.0 * (p as f64 - 1.0) / p as f64;
            let predicted = match alg {
                Some(a) => predict(a, &machine, p, bytes),
                None => CHOICES
                    .map(|a| predict(a, &machine, p, bytes))
                    .into_iter()
                    .fold(f64::MAX, f64::min),
            };
            let row = Row {
                bytes,
                count: n,
                elem: T::NAME,
                op,
                alg,
                seconds,
                algbw,
                busbw,
                wrong,
                predicted,
                model_error: (predicted / seconds - 1.0) * 100.0,
            };
            if rank == 0 && table {
                println!("{}", aligned(row.fields()));
            }
            rows.push(row);
        }
    }
    if rank != 0 {
        return summary::Outcome::default();
    }
    if table {
        print_machine(&machine, p, memcpy);
        summary::report(&rows, p);
        if algs.len() > Algorithm::ALL.len() + 1 {
            summary::at_scale(
                &machine,
                &algs.iter().flatten().copied().collect::<Vec<_>>(),
            );
        }
    }
    let outcome = summary::model_and_choice(&rows, &machine, p);
    summary::Outcome {
        busbw_8mib: summary::where_the_time_goes(&rows, &machine, p, pingpong, memcpy),
        ..outcome
    }
}

/// The algorithms ex 3.5 chooses between.
const CHOICES: [Algorithm; 2] = [Algorithm::RecursiveDoubling, Algorithm::SegmentedRing];

fn main() {
    limits::keep_freed_memory();
    if !toolkit::launch::under_mpirun() {
        toolkit::bench::unbind_ranks(); // before init() re-launches this under mpirun
    }
    let universe = toolkit::init();
    let world = universe.world();
    if world.size() < 2 {
        println!("sweep: an allreduce over 1 rank moves nothing to time; run it with NP=2 or more");
        return;
    }
    let op = match arg("--op", "sum").as_str() {
        "sum" => Op::Sum,
        "max" => Op::Max,
        "min" => Op::Min,
        "absmax" => Op::AbsMax,
        other => panic!("--op {other}: expected sum, max, min or absmax"),
    };
    let runs: usize = arg("--runs", "1")
        .parse()
        .expect("--runs N: a number of runs");
    let outcomes: Vec<summary::Outcome> = (0..runs.max(1))
        .map(|run| {
            if world.rank() == 0 && run > 0 {
                println!("# run {} of {runs}", run + 1);
            }
            let table = run == 0;
            match arg("--type", "f32").as_str() {
                "f32" => sweep::<f32>(&world, op, table),
                "f64" => sweep::<f64>(&world, op, table),
                "i32" => sweep::<i32>(&world, op, table),
                "i64" => sweep::<i64>(&world, op, table),
                other => panic!("--type {other}: expected f32, f64, i32 or i64"),
            }
        })
        .collect();
    if world.rank() == 0 && runs > 1 {
        summary::over_runs(&outcomes, world.size() as usize);
    }
}
