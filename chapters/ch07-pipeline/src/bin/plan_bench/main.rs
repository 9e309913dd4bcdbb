//! Benchmark: the schedules after 1F1B on real ranks. 1F1B, interleaved 1F1B (v = 2
//! chunks per rank) and ZB-H1 run by ex 7.9's executor on the same model and batch, at
//! p = 2 and 4 ranks (one mpirun each, started by this program) and m = 4, 8, 16.
//!
//! Run: `make bench CH=07` (after `pipe_bench`), or alone `cargo run --release -p
//! ch07-pipeline --features solution --bin plan_bench`. Per (p, schedule, m): the bubble on paper (the
//! checker with F = 1, B + W = 2 per stage or chunk) and measured (1 - the ranks' time in
//! forward and backward passes / (p x the step's wall time), averaged over steps), the
//! most activations a rank holds on paper (in stages' worth), the ranks' compute time per
//! step, and samples/s. Expect interleaving to cut the paper bubble by about v and ZB-H1
//! to a third, and LibTorch's ZB-H1 to pay for it: its weight gradient walks the graph
//! again (more compute per step). Writes target/workbook/ch07/plan_bench.csv.

mod paper;

use ch07::greedy;
use ch07::optim::{Optimizer, Rule};
use ch07::pipe_train::{learner_transfer, place};
use ch07::plan::{by_rank, RankPlan, ScheduleKind};
use ch07::rank_check::{check_ranks, PassCosts};
use ch07::rank_schedules::{interleaved, zero_bubble_h1};
use ch07::spans::Timeline;
use ch07::stage_model::{Shape, StageModel};
use ch07::task_executor::run_tasks;
use ch07::wire::Dtype;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::Device;
use toolkit::bench::{self, at_rank_counts, print_row};
use toolkit::report::{print_and_save, Timing};

const RANKS: [u32; 2] = [2, 4];
const MICRO: [usize; 3] = [4, 8, 16];
const WARMUP: u64 = 3;
const STEPS: u64 = 20;
/// Timed steps per row: [`STEPS`], or 1 in a smoke run (`toolkit::bench::smoke`).
fn steps() -> u64 {
    bench::sized(STEPS, 1)
}
const BATCH: usize = 256;
const WIDTH: i64 = 128;
const DEPTH: usize = 8;
const SEED: u64 = 7;

/// The model: the trainer's task, WIDTH x DEPTH, in f64 (the rows the book shows were measured so).
fn shape() -> Shape {
    let trainer = ch07::pipe_config::PipeConfig::default().shape;
    Shape {
        width: WIDTH,
        depth: DEPTH,
        dtype: Dtype::F64,
        ..trainer
    }
}

#[derive(Tabled)]
struct Row {
    p: u32,
    schedule: String,
    m: usize,
    #[tabled(rename = "bubble on paper")]
    paper: String,
    #[tabled(rename = "measured bubble")]
    measured: String,
    #[tabled(rename = "held on paper (stages' worth)")]
    held: String,
    #[tabled(rename = "compute ms/step (all ranks)")]
    compute: String,
    #[tabled(rename = "samples/s")]
    rate: String,
}

/// One (schedule, m) at p ranks, as rank 0 prints it (`ROW {json}`).
#[derive(Serialize, Deserialize)]
struct Measured {
    schedule: String,
    m: usize,
    paper: f64,
    bubble: f64,
    held: f64,
    compute_ms: f64,
    samples_per_s: f64,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    let load_before = bench::load_average();
    let costs = paper::pass_costs();
    let mut rows = vec![];
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(600)) {
        for r in bench::rows::<Measured>(&lines).unwrap_or_else(|e| panic!("plan_bench: {e}")) {
            rows.push(Row {
                p: np,
                schedule: r.schedule,
                m: r.m,
                paper: format!("{:.1}%", 100.0 * r.paper),
                measured: format!("{:.1}%", 100.0 * r.bubble),
                held: format!("{:.1}", r.held),
                compute: format!("{:.1}", r.compute_ms),
                rate: format!("{:.0}", r.samples_per_s),
            });
        }
    }
    let path = print_and_save(&rows, "ch07/plan_bench.csv").expect("write csv");
    let cores = toolkit::report::host_cores();
    println!(
        "model: {DEPTH} residual blocks of width {WIDTH} (f64), 3-digit addition, batch {BATCH}, \
         Adam; {WARMUP} warm-up + {} timed steps per row; interleaved: v = 2 chunks per \
         rank ({DEPTH}/(2p) blocks each); this machine: {cores} core(s), LibTorch on \
         max(1, {cores} / p) thread(s) per rank; load average (1 min) {load_before:.2} before the \
         run, {:.2} after: above the core count, other processes shared the cores and the \
         measured columns say more about them than about the schedules",
        steps(),
        bench::load_average()
    );
    println!(
        "bubble on paper: idle share of the step, F = 1 and B + W = 2 per stage (per chunk when \
         interleaved); measured: 1 - (time in forward and backward passes, summed over ranks) / \
         (p x the step's wall time), so messages and copies count as idle"
    );
    println!("wrote {}", path.display());
    println!();
    paper::zero_bubble_with(costs);
}

fn inner(world: &SimpleCommunicator) {
    let p = world.size() as usize;
    let device = place(world, false);
    for m in MICRO {
        let plans: [(&str, usize, RankPlan); 3] = [
            (
                "1F1B",
                1,
                by_rank(&greedy::schedule(ScheduleKind::OneFOneB, p, m)),
            ),
            ("interleaved v=2", 2, interleaved(p, 2, m)),
            ("ZB-H1", 1, zero_bubble_h1(p, m)),
        ];
        for (name, v, plan) in plans {
            let paper = check_ranks(&plan, v, m, PassCosts::SPLIT_UNIT).expect("a checked plan");
            let (bubble, compute, rate) =
                measure(world, &plan[world.rank() as usize], v, m, device);
            if world.rank() == 0 {
                let most = paper.ranks.iter().map(|r| r.peak_held).max().unwrap_or(0);
                print_row(&Measured {
                    schedule: name.into(),
                    m,
                    paper: paper.bubble(),
                    bubble,
                    held: most as f64 / v as f64,
                    compute_ms: 1e3 * compute,
                    samples_per_s: rate,
                });
            }
        }
    }
}

/// Trains this rank's `v` chunks with `tasks`: (measured bubble, compute seconds per step
/// summed over ranks, samples/s).
fn measure(
    world: &SimpleCommunicator,
    tasks: &[ch07::plan::Task],
    v: usize,
    m: usize,
    device: Device,
) -> (f64, f64, f64) {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let shape = shape();
    let stages = v * p;
    let mut chunks: Vec<StageModel> = (0..v)
        .map(|c| {
            let s = c * p + r;
            let blocks = toolkit::split::block_range(DEPTH, stages, s);
            StageModel::new(shape, blocks, s == 0, s + 1 == stages, SEED, device)
        })
        .collect();
    let mut opts: Vec<Optimizer> = chunks
        .iter()
        .map(|c| Optimizer::new(Rule::Adam { lr: 2e-3 }, &c.params))
        .collect();
    let mut trace = Timeline::new();
    let (mut bubble, mut compute) = (0.0, 0.0);
    let mut start = Instant::now();
    let steps = steps();
    for step in 0..WARMUP + steps {
        if step == WARMUP {
            world.barrier();
            start = Instant::now();
        }
        let (x, y) = shape.task.train_batch(SEED, step, BATCH);
        let batch = ch07::addition::micro_batches(&x, &y, m, device);
        chunks.iter_mut().for_each(StageModel::zero_grad);
        world.barrier();
        trace.restart();
        run_tasks(
            world,
            tasks,
            &chunks,
            &batch,
            learner_transfer::<f64>(),
            &mut trace,
        )
        .expect("step");
        let (mut end, mut busy) = (0.0, 0.0);
        world.all_reduce_into(&trace.now(), &mut end, SystemOperation::max());
        world.all_reduce_into(&trace.busy(), &mut busy, SystemOperation::sum());
        for (c, opt) in chunks.iter_mut().zip(&mut opts) {
            let grads = c.grads();
            opt.step(&mut c.params, &grads);
        }
        if step >= WARMUP {
            bubble += 1.0 - busy / (p as f64 * end);
            compute += busy;
        }
    }
    let wall = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max;
    (
        bubble / steps as f64,
        compute / steps as f64,
        (steps as usize * BATCH) as f64 / wall,
    )
}
