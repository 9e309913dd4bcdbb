//! Benchmark: data-parallel training throughput and the cost of gradient sync, at NP = 1,
//! 2 and 4 ranks side by side (one mpirun each, started by this program).
//!
//! Run: `make bench CH=06` (release build). Per rank count: the default CNN on the digits
//! (samples/s, share of the step spent in gradient sync, bucketed), and a 30-layer MLP
//! of width 32 (64 parameter tensors) whose gradients are synced per tensor and in one
//! 256 KiB bucket. The CNN's sync is timed twice: inside the training step (where it
//! includes waiting for the slowest rank) and alone, in a loop (pure communication).
//! Expect the bucketed sync of the deep MLP several times faster than per tensor at 2+
//! ranks. On a
//! 2-core machine NP=4 oversubscribes the cores: its times include waiting for a core.
//! The last columns compare the CNN's sync (bus bandwidth, as nccl-tests counts it)
//! with a memcpy on every rank in the same run, the machine's physical limit.
//! Writes target/workbook/ch06/dp_bench.csv.

use ch06::config::{Config, DeviceChoice};
use ch06::grad_sync::{allreduce_bucketed, allreduce_per_tensor};
use ch06::model::ModelKind;
use ch06::reducer::MpiAllreduce;
use ch06::report::Progress;
use ch06::{data, device, optim, train::Trainer};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};
use tabled::Tabled;
use toolkit::bench::{at_rank_counts, tagged, unbind_ranks};
use toolkit::report::{print_and_save, Timing};

const RANKS: [u32; 3] = [1, 2, 4];
const WARMUP: u64 = 10;
const STEPS: u64 = 100;
const SYNCS: usize = 50;

/// Warm-up steps, timed steps and syncs: the constants, or each once in a smoke run
/// (`toolkit::bench::smoke`).
fn counts() -> (u64, u64, usize) {
    toolkit::bench::sized((WARMUP, STEPS, SYNCS), (1, 1, 1))
}
/// Bucket cap for the deep MLP: its ~34,000 gradients (136 KB) fit in one bucket.
const DEEP_MLP_BUCKET_KIB: usize = 256;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "NP")]
    np: u32,
    #[tabled(rename = "CNN samples/s")]
    samples: String,
    #[tabled(rename = "CNN step ms")]
    step_ms: String,
    #[tabled(rename = "CNN sync % of step (in the step)")]
    share: String,
    #[tabled(rename = "CNN sync alone ms (% of step)")]
    alone: String,
    #[tabled(rename = "deep MLP per-tensor sync ms")]
    per_tensor: String,
    #[tabled(rename = "deep MLP bucketed sync ms (256 KiB)")]
    bucketed: String,
    #[tabled(rename = "bucketed speed-up")]
    speedup: String,
    #[tabled(rename = "CNN sync busbw GB/s")]
    busbw: String,
    #[tabled(rename = "memcpy GB/s")]
    memcpy: String,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    println!(
        "ranks not bound to cores ({}): this machine is shared",
        unbind_ranks()
    );
    let mut rows = vec![];
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(300)) {
        let Some(line) = tagged(&lines, "RESULT ").next() else {
            panic!("NP={np} printed no result:\n{}", lines.join("\n"));
        };
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        rows.push(Row {
            np,
            samples: format!("{:.0}", f[0]),
            step_ms: format!("{:.2}", f[1]),
            share: format!("{:.1}", f[2]),
            alone: format!("{:.3} ({:.1}%)", f[3], 100.0 * f[3] / f[1]),
            per_tensor: format!("{:.3}", f[4]),
            bucketed: format!("{:.3}", f[5]),
            speedup: format!("{:.1}x", f[4] / f[5]),
            busbw: format!("{:.2}", f[6]),
            memcpy: format!("{:.1}", f[7]),
        });
    }
    let path = print_and_save(&rows, "ch06/dp_bench.csv").expect("write csv");
    println!(
        "CNN sync busbw = gradient bytes / sync alone · 2(p-1)/p (the allreduce's bytes moved \
         per rank per second); memcpy = a 64 MiB copy on every rank at once, read + write \
         counted: the memory system's limit in the same run (no network: a message is a copy)"
    );
    println!("wrote {}", path.display());
}

fn inner(world: &SimpleCommunicator) {
    let (warmup, steps, syncs) = counts();
    let mut cfg = Config::default();
    (cfg.common.quiet, cfg.common.device) = (true, DeviceChoice::Cpu);
    let split = data::digits().expect("digits");
    let place = device::place(world, cfg.common.device, None);
    // The CNN: warm up, then time STEPS steps (wall: the slowest rank's).
    let mut t = Trainer::new(
        world,
        Config {
            max_steps: Some(warmup),
            ..cfg.clone()
        },
        split,
        place,
    )
    .expect("trainer");
    t.fit(&Progress { enabled: false }).expect("warm-up");
    t.cfg.max_steps = Some(warmup + steps);
    t.cfg.epochs = u64::MAX;
    t.sync_secs = 0.0;
    world.barrier();
    let start = Instant::now();
    while t.global_step < warmup + steps {
        t.step();
    }
    let wall = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max;
    let sync = Timing::over_ranks(world, t.sync_secs).max;
    let samples_per_s = (steps as usize * cfg.common.batch) as f64 / wall;
    // The CNN's sync alone, without the compute around it: pure communication.
    let reducer = MpiAllreduce::new(world);
    let mut grads: Vec<tch::Tensor> = t.params.iter().map(|p| p.grad()).collect();
    let mut buf = vec![];
    world.barrier();
    let start = Instant::now();
    for _ in 0..syncs {
        allreduce_bucketed(&reducer, &mut grads, t.buckets(), &mut buf);
    }
    let alone = 1e3 * Timing::over_ranks(world, start.elapsed().as_secs_f64()).max / syncs as f64;
    let bytes: usize = grads
        .iter()
        .map(|g| g.numel() * g.kind().elt_size_in_bytes())
        .sum();
    let p = f64::from(world.size());
    let busbw = bytes as f64 / (alone / 1e3) * 2.0 * (p - 1.0) / p / 1e9;
    let memcpy = memcpy_gbs(world);
    // The deep MLP: one backward, then time each sync SYNCS times.
    let (per_tensor, bucketed) = deep_mlp_syncs(world);
    if world.rank() == 0 {
        let step_ms = 1e3 * wall / steps as f64;
        println!(
            "RESULT {samples_per_s:.1},{step_ms:.3},{:.2},{alone:.4},{per_tensor:.4},{bucketed:.4},\
             {busbw:.4},{memcpy:.3}",
            100.0 * sync / wall
        );
    }
}

/// GB/s of a 64 MiB `copy_from_slice` on every rank at once (read + write), best of 5.
fn memcpy_gbs(world: &SimpleCommunicator) -> f64 {
    let n = 64 << 20;
    let (src, mut dst) = (vec![1u8; n], vec![0u8; n]);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        world.barrier();
        let start = Instant::now();
        dst.copy_from_slice(&src);
        std::hint::black_box(&dst);
        best = best.min(Timing::over_ranks(world, start.elapsed().as_secs_f64()).max);
    }
    2.0 * n as f64 / best / 1e9
}

fn deep_mlp_syncs(world: &SimpleCommunicator) -> (f64, f64) {
    tch::manual_seed(1);
    let vs = tch::nn::VarStore::new(tch::Device::Cpu);
    let model = ch06::model::build(&vs.root(), ModelKind::DeepMlp(30), (8, 8));
    let mut named: Vec<_> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let mut params: Vec<tch::Tensor> = named.into_iter().map(|(_, t)| t).collect();
    let split = data::digits().expect("digits");
    let (x, y) = split.train.batch(&(0..64).collect::<Vec<_>>());
    optim::zero_grads(&mut params);
    ch06::model::loss(&model, &x, &y).backward();
    let mut grads: Vec<tch::Tensor> = params.iter().map(|p| p.grad()).collect();
    let reducer = MpiAllreduce::new(world);
    let lens: Vec<usize> = grads.iter().map(|g| g.numel()).collect();
    let buckets = ch06::grad_sync::plan_buckets(&lens, DEEP_MLP_BUCKET_KIB * 1024);
    let mut buf = vec![];
    let mut time = |f: &mut dyn FnMut(&mut [tch::Tensor])| {
        world.barrier();
        let start = Instant::now();
        let syncs = counts().2;
        for _ in 0..syncs {
            f(&mut grads);
        }
        1e3 * Timing::over_ranks(world, start.elapsed().as_secs_f64()).max / syncs as f64
    };
    let per_tensor = time(&mut |g| allreduce_per_tensor(&reducer, g));
    let bucketed = time(&mut |g| allreduce_bucketed(&reducer, g, &buckets, &mut buf));
    (per_tensor, bucketed)
}
