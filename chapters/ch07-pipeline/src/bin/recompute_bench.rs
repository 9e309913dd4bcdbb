//! Benchmark: activation recomputation, what it saves and what it costs, on one stage
//! (one process, no messages: the memory and the compute are the stage's own).
//!
//! Run: `cargo run --release -p ch07-pipeline --features solution --bin recompute_bench`
//! (part of `make bench CH=07`). A middle stage of 4 residual blocks of width 512 (p = 2
//! of an 8-block model), micro-batches of 256 rows, f32. Memory: for each `--recompute`
//! mode and h micro-batches in flight (1F1B holds p - s on stage s), the heap bytes held
//! after their forwards and at the start of a backward, read with glibc's `mallinfo2`
//! ([`ch07::heap`]), next to the formula of [`ch07::recompute::formula`] times one
//! `[rows, width]` tensor. Time: h forwards then h backwards in each mode, the modes
//! alternated, the fastest of the repetitions (the least disturbed by other work on the
//! machine; the load average is printed): recomputation adds one forward per
//! micro-batch, about a third when a backward costs two forwards. Writes
//! target/workbook/ch07/recompute_bench.csv.

use ch07::addition::Addition;
use ch07::recompute::{formula, measure, Recompute, RECOMPUTE};
use ch07::stage_model::{Shape, StageModel};
use ch07::wire::Dtype;
use std::time::Instant;
use tabled::Tabled;
use tch::{Device, Tensor};
use toolkit::bench::load_average;
use toolkit::report::{host_cores, print_and_save};

const WIDTH: i64 = 512;
const ROWS: i64 = 256;
const BLOCKS: usize = 4;
const HELD: [usize; 3] = [1, 2, 4];
const REPS: usize = 20;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "--recompute")]
    mode: String,
    #[tabled(rename = "in flight h")]
    h: usize,
    #[tabled(rename = "held after forwards MiB (formula)")]
    forwards: String,
    #[tabled(rename = "at a backward MiB (formula)")]
    backward: String,
    #[tabled(rename = "ms per micro-batch (fwd + bwd)")]
    ms: String,
    #[tabled(rename = "time vs none")]
    versus: String,
}

fn mib(bytes: f64) -> f64 {
    bytes / (1u64 << 20) as f64
}

/// Seconds for `h` forwards then `h` backwards of `stage` under `mode`, as the executor
/// runs them (the `Recompute` calls), per micro-batch.
fn timed(stage: &StageModel, mode: Recompute, xs: &[Tensor]) -> f64 {
    let t0 = Instant::now();
    let kept: Vec<(&Tensor, Tensor)> = xs
        .iter()
        .map(|x| (x, mode.keep(mode.forward(|| stage.forward(x)))))
        .collect();
    for (x, y) in kept {
        let y = mode.again(y, || stage.forward(x));
        y.sum(tch::Kind::Float).backward();
    }
    t0.elapsed().as_secs_f64() / xs.len() as f64
}

fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn main() {
    let threads = host_cores().max(1);
    tch::set_num_threads(threads as i32);
    let shape = Shape {
        task: Addition { digits: 3 },
        width: WIDTH,
        depth: 2 * BLOCKS,
        dtype: Dtype::F32,
    };
    let stage = StageModel::new(shape, BLOCKS..2 * BLOCKS, false, false, 7, Device::Cpu);
    let tensor = (ROWS * WIDTH * 4) as f64;
    let _ = measure(&stage, Recompute::None, ROWS, 1); // LibTorch's one-time allocations
    let mut rows = vec![];
    for &h in &HELD {
        let xs: Vec<Tensor> = (0..h)
            .map(|_| {
                Tensor::randn([ROWS, WIDTH], (tch::Kind::Float, Device::Cpu))
                    .set_requires_grad(true)
            })
            .collect();
        let mut times = vec![vec![]; RECOMPUTE.len()];
        for _ in 0..REPS {
            for (k, &(_, mode)) in RECOMPUTE.iter().enumerate() {
                times[k].push(timed(&stage, mode, &xs));
            }
        }
        let base = fastest(&times[0]);
        for (k, &(name, mode)) in RECOMPUTE.iter().enumerate() {
            let Some(held) = measure(&stage, mode, ROWS, h) else {
                println!(
                    "recompute_bench: skipped, no glibc mallinfo2 here: the heap cannot be read"
                );
                return;
            };
            let (fwd, bwd) = formula(mode, BLOCKS, h);
            let t = fastest(&times[k]);
            rows.push(Row {
                mode: name.into(),
                h,
                forwards: format!(
                    "{:.2} ({:.2})",
                    mib(held.after_forwards as f64),
                    mib(fwd as f64 * tensor)
                ),
                backward: format!(
                    "{:.2} ({:.2})",
                    mib(held.at_backward as f64),
                    mib(bwd as f64 * tensor)
                ),
                ms: format!("{:.3}", 1e3 * t),
                versus: format!("{:.2}x", t / base),
            });
        }
    }
    if let Err(e) = print_and_save(&rows, "ch07/recompute_bench.csv") {
        eprintln!("recompute_bench: cannot write the csv: {e}");
    }
    println!(
        "stage: {BLOCKS} residual blocks of width {WIDTH} (f32), neither first nor last, micro-batches of {ROWS} rows; LibTorch on {threads} thread(s); time: the fastest of {REPS} alternated repetitions (load average {:.1} on {} core(s))",
        load_average(),
        host_cores()
    );
    println!(
        "formula, in [rows, width] tensors of {:.2} MiB: none (2 x blocks + 1) x h, the same at a backward; stage h (the inputs), h + 2 x blocks at a backward (one micro-batch's graph, recomputed)",
        mib(tensor)
    );
    println!("measured: glibc mallinfo2 (uordblks + hblkhd) after the h forwards, and after the first backward's recomputed forward, minus the reading before them");
}
