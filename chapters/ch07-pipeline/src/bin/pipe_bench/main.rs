//! Benchmark: the pipeline's bubble, its stored activations and its throughput, GPipe
//! against 1F1B, at p = 2 and 4 stages (one mpirun each, started by this program) and
//! m = 1, 2, 4, 8, 16 micro-batches, next to the same model trained in one process.
//!
//! Run: `make bench CH=07` (release build, with the solutions). Per (p, schedule, m): the
//! bubble `(p-1)/(m+p-1)` and the measured one (the stages' time outside their forwards
//! and backwards, from the barrier that starts a step to the end of its last stage,
//! averaged over steps), the most micro-batches whose activations each stage held at once
//! (counted at the transfer calls: a forward's activation moves on, its gradient comes
//! back), what those held activations weigh on the largest stage, and samples/s. Expect
//! the measured bubble to follow the formula down as m grows, GPipe's held activations to
//! grow with m while 1F1B's stay at p - s on stage s, and one process ahead of the
//! pipeline (a pipeline is for models that do not fit one device, not for speed on one
//! machine's cores). On 2 cores, p = 4 oversubscribes the cores: see the notes printed
//! under the table. Writes target/workbook/ch07/pipe_bench.csv.

mod apart;
mod choose_m;
mod counting;

use ch07::pipe_config::PipeConfig;
use ch07::pipe_train::{place, PipeTrainer};
use ch07::plan::ScheduleKind;
use ch07::schedule_check::{bubble_formula, check, UNIT};
use ch07::stage_model::{whole, Shape, StageModel};
use ch07::wire::{Dtype, WireElem, DTYPES};
use clap::Parser;
use counting::{counting_transfer, HELD};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::Device;
use toolkit::bench::{self, at_rank_counts, print_row, print_tagged, tagged, tagged_rows};
use toolkit::report::{print_and_save, Timing};

const RANKS: [u32; 3] = [1, 2, 4];
const MICRO: [usize; 5] = [1, 2, 4, 8, 16];
const WARMUP: u64 = 3;
const STEPS: u64 = 40;
/// Timed steps per row: [`STEPS`], or 1 in a smoke run (`toolkit::bench::smoke`).
fn steps() -> u64 {
    bench::sized(STEPS, 1)
}
const BATCH: usize = 256;
const WIDTH: i64 = 128;
const DEPTH: usize = 8;

/// pipe_bench's flags (every rank gets the same command line).
#[derive(Parser)]
#[command(
    name = "pipe_bench",
    about = "GPipe against 1F1B at p = 2 and 4, m = 1..16"
)]
struct Args {
    /// Element type of the model and of the messages between stages
    #[arg(long, value_name = "f32|f64", value_parser = trainer_kit::cli::one_of("--dtype", DTYPES), default_value = "f32")]
    dtype: Dtype,
}

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "p")]
    p: String,
    #[tabled(rename = "schedule")]
    schedule: String,
    #[tabled(rename = "m")]
    m: String,
    #[tabled(rename = "bubble (p-1)/(m+p-1)")]
    formula: String,
    #[tabled(rename = "measured bubble")]
    measured: String,
    #[tabled(rename = "peak held per stage")]
    held: String,
    #[tabled(rename = "held KiB (largest stage)")]
    kib: String,
    #[tabled(rename = "samples/s")]
    rate: String,
    #[tabled(rename = "vs one process")]
    versus: String,
}

/// One (schedule, m) at p stages, as rank 0 prints it (`ROW {json}`).
#[derive(Serialize, Deserialize)]
struct Measured {
    schedule: String,
    m: usize,
    bubble: f64,
    held_per_stage: Vec<u64>,
    samples_per_s: f64,
}

fn main() {
    let dtype = Args::parse().dtype;
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        match dtype {
            Dtype::F32 => inner::<f32>(&universe.world()),
            Dtype::F64 => inner::<f64>(&universe.world()),
        }
        return;
    }
    let bytes = dtype.kind().elt_size_in_bytes();
    let (mut rows, mut one, mut rates, mut apart) = (vec![], f64::NAN, vec![], vec![]);
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(300)) {
        apart
            .extend(tagged_rows::<apart::Apart>(&lines, "APART").unwrap_or_else(|e| panic!("{e}")));
        if np == 1 {
            let rates = tagged_rows::<f64>(&lines, "ONE").unwrap_or_else(|e| panic!("{e}"));
            one = rates.first().copied().unwrap_or(f64::NAN);
            rows.push(Row {
                p: "1 (one process)".into(),
                schedule: "-".into(),
                m: "1".into(),
                formula: "-".into(),
                measured: "-".into(),
                held: "1".into(),
                kib: format!("{:.0}", held_kib(DEPTH, BATCH, 1, bytes)),
                rate: format!("{one:.0}"),
                versus: "1.00x".into(),
            });
            continue;
        }
        for r in bench::rows::<Measured>(&lines).unwrap_or_else(|e| panic!("pipe_bench: {e}")) {
            let most = r.held_per_stage.iter().copied().max().unwrap_or(0) as usize;
            let held: Vec<String> = r.held_per_stage.iter().map(u64::to_string).collect();
            rates.push((np, r.schedule.clone(), r.m, r.samples_per_s));
            rows.push(Row {
                p: np.to_string(),
                schedule: r.schedule,
                m: r.m.to_string(),
                formula: format!("{:.1}%", 100.0 * bubble_formula(np as usize, r.m)),
                measured: format!("{:.1}%", 100.0 * r.bubble),
                held: held.join("/"),
                kib: format!(
                    "{:.0}",
                    held_kib(DEPTH / np as usize, BATCH / r.m, most, bytes)
                ),
                rate: format!("{:.0}", r.samples_per_s),
                versus: format!("{:.2}x", r.samples_per_s / one),
            });
        }
        for note in tagged(&lines, "NOTE ") {
            println!("p = {np}: {note}");
        }
    }
    let path = print_and_save(&rows, "ch07/pipe_bench.csv").expect("write csv");
    let cores = toolkit::report::host_cores();
    println!(
        "model: {DEPTH} residual blocks of width {WIDTH} ({}), 3-digit addition, batch {BATCH}, Adam; \
         {WARMUP} warm-up + {} timed steps per row; this machine: {cores} core(s)",
        dtype.name(),
        steps()
    );
    println!(
        "one process: the whole model on the whole batch at once, LibTorch on {cores} thread(s); \
         each pipeline rank runs LibTorch on max(1, {cores} / p) thread(s)"
    );
    println!(
        "held: micro-batches whose forward is done and backward is not, counted on each stage \
         (they equal the schedule checker's count on paper); KiB: held x {DEPTH}/p blocks x 2 saved \
         tensors (each block's input and its ReLU output) x rows x width x {bytes} bytes"
    );
    println!(
        "measured bubble: 1 - (time in forward and backward, summed over stages) / (p x the \
         step's wall time, barrier to the last stage's end), averaged over steps: it also \
         counts the copies and messages between stages as idle"
    );
    if cores < 4 {
        println!(
            "limits on {cores} cores: at p = 2 each stage has a core; at p = 4 two stages share \
             each core, and a stage waiting in a receive does not sleep: MPI polls for the message \
             and takes core time from the stage computing beside it, so compute spans stretch \
             and the measured bubble is not the schedule's alone"
        );
    }
    choose_m::lines(&rates, &apart, BATCH, &MICRO)
        .iter()
        .for_each(|l| println!("{l}"));
    println!("wrote {}", path.display());
}

/// The benchmark's model: the default task, [`DEPTH`] blocks of [`WIDTH`], in `E`.
fn shape<E: WireElem>() -> Shape {
    let mut shape = PipeConfig::default().shape;
    (shape.width, shape.depth, shape.dtype) = (WIDTH, DEPTH, E::DTYPE);
    shape
}

/// Saved activations of `held` micro-batches of a batch of `rows` rows through `blocks`
/// blocks, of `bytes` per element, in KiB.
fn held_kib(blocks: usize, rows: usize, held: usize, bytes: usize) -> f64 {
    (held * blocks * 2 * rows * WIDTH as usize * bytes) as f64 / 1024.0
}

fn inner<E: WireElem>(world: &SimpleCommunicator) {
    if world.size() == 1 {
        print_tagged("ONE", &one_process::<E>());
        return;
    }
    let p = world.size() as usize;
    let device = place(world, false);
    if p == 2 {
        apart::measure::<E>(world, shape::<E>(), BATCH, &MICRO, &[2, 4]);
    }
    for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
        for m in MICRO {
            let (bubble, rate, held) = pipeline::<E>(world, kind, m, device);
            let mut all = vec![0u64; p];
            world.all_gather_into(&(held as u64), &mut all[..]);
            let paper = check(&ch07::choose::schedule_for(kind, p, m), m, UNIT).expect("schedule");
            let on_paper: Vec<u64> = paper
                .stages
                .iter()
                .map(|s| s.peak_in_flight as u64)
                .collect();
            if world.rank() == 0 {
                print_row(&Measured {
                    schedule: format!("{kind:?}"),
                    m,
                    bubble,
                    held_per_stage: all.clone(),
                    samples_per_s: rate,
                });
                if all != on_paper {
                    println!("NOTE {kind:?} m = {m}: held {all:?}, on paper {on_paper:?}");
                }
            }
        }
    }
}

/// Trains a fresh pipeline of `kind` with `m` micro-batches: (measured bubble, samples/s,
/// the most micro-batches this stage held at once).
fn pipeline<E: WireElem>(
    world: &SimpleCommunicator,
    kind: ScheduleKind,
    m: usize,
    device: Device,
) -> (f64, f64, usize) {
    let mut cfg = PipeConfig {
        micro: m,
        schedule: kind.into(),
        ..PipeConfig::default()
    };
    (cfg.common.batch, cfg.common.quiet) = (BATCH, true);
    cfg.shape = shape::<E>();
    let mut t = PipeTrainer::new(world, cfg, counting_transfer::<E>(), device).expect("trainer");
    for _ in 0..WARMUP {
        t.train_step().expect("step");
    }
    HELD.with(|h| *h.borrow_mut() = (BTreeSet::new(), 0));
    let (mut bubble, steps) = (0.0, steps());
    world.barrier();
    let start = Instant::now();
    for _ in 0..steps {
        t.train_step().expect("step");
        // The step ends when its last stage does (all started together, at a barrier).
        let (mut end, mut busy) = (0.0, 0.0);
        world.all_reduce_into(&t.wall, &mut end, SystemOperation::max());
        world.all_reduce_into(&t.trace.busy(), &mut busy, SystemOperation::sum());
        bubble += 1.0 - busy / (world.size() as f64 * end);
    }
    let wall = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max;
    let held = HELD.with(|h| h.borrow().1);
    (
        bubble / steps as f64,
        (steps as usize * BATCH) as f64 / wall,
        held,
    )
}

/// The same model and optimizer in one process, on the whole batch at once (LibTorch on
/// every core): samples/s.
fn one_process<E: WireElem>() -> f64 {
    let cores = toolkit::report::host_cores();
    tch::set_num_threads(cores as i32);
    let cfg = PipeConfig {
        shape: shape::<E>(),
        ..PipeConfig::default()
    };
    let mut model = whole(cfg.shape, cfg.common.seed, Device::Cpu);
    let mut opt =
        ch07::optim::Optimizer::new(ch07::optim::Rule::Adam { lr: cfg.common.lr }, &model.params);
    let mut step = |i: u64| {
        let (x, y) = cfg.shape.task.train_batch(cfg.common.seed, i, BATCH);
        model.zero_grad();
        StageModel::loss(&model.forward(&x), &y).backward();
        let grads = model.grads();
        opt.step(&mut model.params, &grads);
    };
    (0..WARMUP).for_each(&mut step);
    let start = Instant::now();
    (WARMUP..WARMUP + steps()).for_each(&mut step);
    (steps() as usize * BATCH) as f64 / start.elapsed().as_secs_f64()
}
