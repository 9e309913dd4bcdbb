//! Benchmark: the step time of every ZeRO stage against chapter 6's replicated trainer, at
//! N = 2 and 4 ranks side by side in one run (one mpirun each, started by this program),
//! with the time in the collectives, and ZeRO-3 with its prefetch off and on.
//!
//! Run: `make bench CH=08` (release build). Per rank count, on chapter 6's CNN and the
//! digits (global batch 48, the same batches for every trainer): chapter 6's trainer
//! (SGD with momentum, its bucketed allreduce), then this chapter's at stages 0, 1, 2
//! (Adam, MPI's collectives) and 3 (the layer executor, prefetch off and on). Columns:
//! the step (the slowest rank's mean), the same collectives on the same buffers alone in a
//! loop (pure communication), and at stage 3 the time inside the step's collectives
//! (blocking calls and prefetch waits), measured by `ch08::timed::Timed`. Writes
//! target/workbook/ch08/zero_bench.csv.

use ch06::model::ModelKind;
use ch08::config::{Collectives, Config};
use ch08::halves::{Halves, MpiHalves};
use ch08::memory::Stage;
use ch08::shards::Layout;
use ch08::timed::Timed;
use ch08::train::Trainer;
use ch08::zero3::{Comm, Sharded};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::Tensor;
use toolkit::bench::{at_rank_counts, load_average, print_row, rows, unbind_ranks};
use toolkit::report::{print_and_save, Timing};

const RANKS: [u32; 2] = [2, 4];
const WARMUP: usize = 3;
const STEPS: usize = 30;
const LOOPS: usize = 30;
const ROUNDS: usize = 3;
const BATCH: usize = 48;

/// Timed steps, loops and rounds: the constants, or one each in a smoke run
/// (`toolkit::bench::smoke`).
fn counts() -> (usize, usize, usize) {
    toolkit::bench::sized((STEPS, LOOPS, ROUNDS), (1, 1, 1))
}

#[derive(Serialize, Deserialize, Tabled)]
struct Row {
    #[tabled(rename = "N")]
    n: usize,
    #[tabled(rename = "trainer")]
    trainer: String,
    #[tabled(rename = "step ms")]
    step_ms: String,
    #[tabled(rename = "collectives alone ms")]
    alone_ms: String,
    #[tabled(rename = "alone / step")]
    share: String,
    #[tabled(rename = "in-step collectives ms")]
    in_step_ms: String,
    #[tabled(rename = "held B per rank")]
    held: String,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    println!(
        "ranks not bound to cores ({}), load average {:.2}",
        unbind_ranks(),
        load_average()
    );
    let mut all: Vec<Row> = vec![];
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(500)) {
        let got: Vec<Row> = rows(&lines).unwrap_or_else(|e| panic!("NP={np}: {e}"));
        all.extend(got);
    }
    let path = print_and_save(&all, "ch08/zero_bench.csv").expect("write csv");
    println!(
        "step: mean of {STEPS} steps after {WARMUP}, the slowest rank's, in the best of \
         {ROUNDS} rounds; collectives alone: the step's reduce-scatters and allgathers (stage 0: \
         its allreduce) on buffers of the same lengths, {LOOPS} times in a loop, the best of \
         {ROUNDS} rounds; in-step: time inside the stage 3 step's collectives (blocking calls, \
         and the waits for prefetched allgathers) in the step's best round"
    );
    println!("wrote {}", path.display());
}

/// WARMUP + STEPS batches of BATCH / N samples, this rank's strided part of each global
/// batch (the epoch's batches again from the first when there are not enough).
fn batches(world: &SimpleCommunicator, train: &ch06::data::Dataset) -> Vec<(Tensor, Tensor)> {
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    let order = ch06::shuffle::shuffled(train.len(), 8, 0);
    (0..WARMUP + counts().0)
        .map(|k| {
            let k = k % (train.len() / BATCH);
            let global = &order[k * BATCH..(k + 1) * BATCH];
            let mine: Vec<usize> = global.iter().copied().skip(rank).step_by(n).collect();
            train.batch(&mine)
        })
        .collect()
}

/// The step time in ms of `step` over the timed batches: the slowest rank's mean over
/// STEPS steps, in the best of ROUNDS rounds (the machine is shared: the best round is the
/// least disturbed), and `comm()` (seconds in collectives so far) over that round, in ms
/// per step.
fn time_steps(
    world: &SimpleCommunicator,
    b: &[(Tensor, Tensor)],
    step: &mut dyn FnMut(&Tensor, &Tensor),
    comm: &dyn Fn() -> f64,
) -> (f64, f64) {
    for (x, y) in &b[..WARMUP] {
        step(x, y);
    }
    let (mut best, (steps, _, rounds)) = ((f64::INFINITY, 0.0), counts());
    for _ in 0..rounds {
        world.barrier();
        let (t0, c0) = (Instant::now(), comm());
        for (x, y) in &b[WARMUP..] {
            step(x, y);
        }
        let ms = 1e3 * Timing::over_ranks(world, t0.elapsed().as_secs_f64()).max / steps as f64;
        let in_comm = 1e3 * Timing::over_ranks(world, comm() - c0).max / steps as f64;
        if ms < best.0 {
            best = (ms, in_comm);
        }
    }
    best
}

/// The mean ms (the slowest rank's) of `f` repeated LOOPS times, the best of ROUNDS.
fn time_alone(world: &SimpleCommunicator, f: &mut dyn FnMut()) -> f64 {
    let (mut best, (_, loops, rounds)) = (f64::INFINITY, counts());
    for _ in 0..rounds {
        world.barrier();
        let t0 = Instant::now();
        for _ in 0..loops {
            f();
        }
        let ms = 1e3 * Timing::over_ranks(world, t0.elapsed().as_secs_f64()).max / loops as f64;
        best = best.min(ms);
    }
    best
}

fn inner(world: &SimpleCommunicator) {
    tch::set_num_threads(1);
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    let split = ch06::data::digits().expect("digits");
    let b = batches(world, &split.train);
    let mut out: Vec<Row> = vec![];
    let row =
        |trainer: &str, step: f64, alone: f64, in_step: Option<f64>, held: Option<usize>| Row {
            n,
            trainer: trainer.into(),
            step_ms: format!("{step:.2}"),
            alone_ms: format!("{alone:.2}"),
            share: format!("{:.0}%", 100.0 * alone / step),
            in_step_ms: in_step.map_or("-".into(), |s| format!("{s:.2}")),
            held: held.map_or("-".into(), |h| h.to_string()),
        };
    // Chapter 6's replicated trainer on the same model, batch and digits.
    let mut c6 = ch06::config::Config::default();
    (c6.common.quiet, c6.common.device, c6.common.batch) =
        (true, ch06::config::DeviceChoice::Cpu, BATCH);
    c6.epochs = u64::MAX;
    let place = ch06::device::place(world, c6.common.device, Some(1));
    let data = ch06::data::digits().expect("digits");
    let mut t6 = ch06::train::Trainer::new(world, c6, data, place).expect("chapter 6's trainer");
    let (step6, _) = time_steps(
        world,
        &b,
        &mut |_, _| {
            t6.step();
        },
        &|| 0.0,
    );
    let p = t6.params.iter().map(Tensor::numel).sum::<usize>();
    let mut sum = vec![0f32; p];
    let ones = vec![1f32; p];
    let alone6 = time_alone(world, &mut || {
        world.all_reduce_into(&ones[..], &mut sum[..], SystemOperation::sum())
    });
    out.push(row(
        "chapter 6 (replicated, SGD)",
        step6,
        alone6,
        None,
        None,
    ));
    drop(t6);
    // This chapter's stages 0, 1, 2 (MPI's collectives).
    let halves = MpiHalves { world };
    for stage in [Stage::Replicated, Stage::Zero1, Stage::Zero2] {
        let mut cfg = Config {
            stage,
            collectives: Collectives::Mpi,
            model: ModelKind::Cnn,
            ..Config::default()
        };
        (cfg.common.quiet, cfg.common.batch) = (true, BATCH);
        let mut t = Trainer::new(world, cfg, (8, 8)).expect("trainer");
        let (step, _) = time_steps(
            world,
            &b,
            &mut |x, y| {
                t.step(x, y, false);
            },
            &|| 0.0,
        );
        let l = t.layout.clone();
        let (full, mut shard, mut back) = (
            vec![1f32; l.padded],
            vec![0f32; l.padded / n],
            vec![0f32; l.padded],
        );
        let alone = match stage {
            Stage::Replicated => time_alone(world, &mut || {
                world.all_reduce_into(&full[..], &mut back[..], SystemOperation::sum())
            }),
            _ => time_alone(world, &mut || {
                halves.sum_scatter(&full, &mut shard);
                halves.gather_all(&shard, &mut back);
            }),
        };
        out.push(row(
            &format!("stage {} ({})", stage.number(), stage.name()),
            step,
            alone,
            None,
            Some(t.held().total()),
        ));
    }
    // Stage 3, the prefetch off and on.
    for prefetch in [false, true] {
        tch::manual_seed(8);
        let mut m = Sharded::new(ModelKind::Cnn, (8, 8), (n, rank), 1e-3, Layout::new)
            .expect("ZeRO-3 model");
        let timed = Timed::new(&halves);
        let comm = Comm {
            halves: &timed,
            prefetch: prefetch.then_some(world),
        };
        let total = std::cell::Cell::new(0.0); // seconds in collectives, all steps so far
        let (step, in_step) = time_steps(
            world,
            &b,
            &mut |x, y| {
                m.step(&comm, x, y);
                total.set(timed.secs.get() + m.wait_secs.get());
            },
            &|| total.get(),
        );
        let mut bufs: Vec<(Vec<f32>, Vec<f32>, Vec<f32>)> = m
            .units
            .iter()
            .map(|u| u.layout.padded)
            .map(|len| (vec![1f32; len], vec![0f32; len / n], vec![0f32; len]))
            .collect();
        let alone = time_alone(world, &mut || {
            for (full, shard, back) in bufs.iter_mut() {
                halves.gather_all(shard, back); // forward
                halves.gather_all(shard, back); // backward
                halves.sum_scatter(full, shard);
            }
        });
        let name = format!(
            "stage 3 (ZeRO-3), prefetch {}",
            if prefetch { "on" } else { "off" }
        );
        out.push(row(
            &name,
            step,
            alone,
            Some(in_step),
            Some(m.held().total()),
        ));
    }
    if rank == 0 {
        out.iter().for_each(print_row);
    }
}
