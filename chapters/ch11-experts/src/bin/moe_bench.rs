//! Benchmark: one MoE layer's forward and backward (ex 11.1 to 11.4: route, dispatch,
//! experts, combine, the squared error plus the balancing loss, the backward through both
//! exchanges) on the same global batch at EP = 1, 2 and 4 ranks (one mpirun each, started
//! by this program), for a balanced router and a skewed one, each with room for an uneven
//! load (capacity factor 1.25) and with room for everything (no drops).
//!
//! Run: `make bench CH=11` (release build). 2048 tokens drawn around 8 clusters
//! (`task::Task`, hidden 256), one expert per cluster, k = 1; rank r holds tokens
//! `r·T..(r+1)·T` of the same global batch (T = 2048 / P). The router is the clusters'
//! centres, so it sends each token to its cluster's expert: balanced, every cluster drawn
//! equally often; skewed, cluster 0 drawn 60% of the time. Columns: tokens/s (the global
//! batch over the slowest rank's step), the step, the step's four row exchanges alone on
//! the same counts, the pairs dropped, and the dispatch's bytes to other ranks per rank
//! (the mean, the busiest sender, the busiest receiver), counted from the counts the
//! exchange gives MPI, next to `T·k·hidden·4·(P-1)/P`. Writes
//! target/workbook/ch11/moe_bench.csv.
//!
//! `--train STEPS [--tokens N] [--hidden H] [--k K] [--layer ep|one]`: instead,
//! `moe_train`'s step (Adam, α = 0.1, its other defaults) in one process (`ep`: the
//! expert-parallel step on one rank; `one`: every expert in one graph), each step's losses and the time per step
//! (`ch11::anchor`): what `make anchors` puts next to PyTorch (scripts/anchors/moe_layer.py).

use ch11::anchor::{parse, train_steps};
use ch11::backward::backward;
use ch11::balance::aux_loss;
use ch11::config::{Layout, MoeConfig};
use ch11::exchange::exchange_rows;
use ch11::experts::Experts;
use ch11::nets::{tensor, ExpertNets};
use ch11::pass::forward;
use ch11::routing::Dispatched;
use ch11::task::Task;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::{Device, Kind};
use toolkit::bench::{at_rank_counts, load_average, print_row, rows, unbind_ranks};
use toolkit::report::{oversubscription_note, print_and_save, Timing};

const RANKS: [u32; 3] = [1, 2, 4];
const EXPERTS: usize = 8;
const K: usize = 1;
const ALPHA: f64 = 0.01;
const SEED: u64 = 11;
const WARMUP: usize = 2;
/// The skewed router's share of the tokens for expert 0.
const HOT: f64 = 0.6;

/// Global tokens, hidden, timed steps, rounds: smaller in a smoke run.
fn sizes() -> (usize, usize, usize, usize) {
    toolkit::bench::sized((2048, 256, 20, 3), (16, 4, 1, 1))
}

#[derive(Serialize, Deserialize, Tabled)]
struct Row {
    #[tabled(rename = "EP")]
    ep: usize,
    #[tabled(rename = "router")]
    router: String,
    #[tabled(rename = "capacity")]
    capacity: String,
    #[tabled(rename = "tokens/s")]
    tokens_s: String,
    #[tabled(rename = "step ms")]
    step_ms: String,
    #[tabled(rename = "exchanges alone ms")]
    alone_ms: String,
    #[tabled(rename = "dropped")]
    dropped: String,
    #[tabled(rename = "sent B/rank (mean)")]
    out_mean: u64,
    #[tabled(rename = "busiest sender B")]
    out_max: u64,
    #[tabled(rename = "busiest receiver B")]
    in_max: String,
    #[tabled(rename = "T·k·h·4·(P-1)/P")]
    formula: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let train = parse(&args).unwrap_or_else(|e| {
        eprintln!("moe_bench: {e}");
        std::process::exit(2)
    });
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        tch::set_num_threads(1);
        match train {
            Some(run) => train_steps(&universe.world(), &run),
            None => inner(&universe.world()),
        }
        return;
    }
    if train.is_some() {
        for (_, lines) in at_rank_counts(&[1], Duration::from_secs(300)) {
            lines.iter().for_each(|l| println!("{l}"));
        }
        return;
    }
    println!(
        "ranks not bound to cores ({}), load average {:.2}",
        unbind_ranks(),
        load_average()
    );
    let mut all: Vec<Row> = vec![];
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(500)) {
        all.extend(rows::<Row>(&lines).unwrap_or_else(|e| panic!("NP={np}: {e}")));
    }
    all.sort_by_key(|r| (r.router.clone(), r.capacity.clone(), r.ep));
    let path = print_and_save(&all, "ch11/moe_bench.csv").expect("write csv");
    let (global, hidden, steps, rounds) = sizes();
    println!(
        "{global} tokens in all, hidden {hidden}, {EXPERTS} experts, k = {K}, α = {ALPHA}, f32, \
         1 thread per rank. step: forward + backward, mean of {steps} after {WARMUP}, the \
         slowest rank's, best of {rounds} rounds; exchanges alone: the step's 4 all-to-all-v's \
         of rows (2 forward, 2 backward) on the same counts; dropped: of the {global} pairs; \
         bytes: one dispatch's rows to other ranks (the combine sends the same back)"
    );
    println!(
        "{}",
        oversubscription_note(*RANKS.iter().max().unwrap() as usize)
    );
    println!("wrote {}", path.display());
}

/// The clusters' popularity skew at which cluster 0 is drawn with probability [`HOT`]
/// (weights `1/(i+1)^skew`, bisected).
fn skew_for_hot() -> f64 {
    let share = |s: f64| 1.0 / (0..EXPERTS).map(|i| (i as f64 + 1.0).powf(-s)).sum::<f64>();
    let (mut lo, mut hi) = (0.0, 10.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        (lo, hi) = if share(mid) < HOT {
            (mid, hi)
        } else {
            (lo, mid)
        };
    }
    (lo + hi) / 2.0
}

fn inner(world: &SimpleCommunicator) {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let (global, hidden, steps, rounds) = sizes();
    let t = global / p;
    let task = Task::new(EXPERTS, hidden, SEED);
    let centres: Vec<f32> = (0..hidden)
        .flat_map(|d| task.centres().iter().map(move |c| 4.0 * c[d]))
        .collect();
    let router = tensor(&centres, &[hidden as i64, EXPERTS as i64]).set_requires_grad(true);
    let experts = Experts::linear(EXPERTS, hidden, SEED + 1);
    let layout = Layout {
        experts: EXPERTS,
        ranks: p,
    };
    let nets = ExpertNets::new(&experts, layout.local(rank), Device::Cpu);
    let maps = Experts::linear(EXPERTS, hidden, SEED + 5);
    let routers = [
        ("balanced", 0.0),
        ("skewed: 60% to expert 0", skew_for_hot()),
    ];
    for (name, skew) in routers {
        let b = task.batch(global, skew, SEED + 7);
        let mine = rank * t..(rank + 1) * t;
        let x = &b.x[mine.start * hidden..mine.end * hidden];
        let y: Vec<f32> = mine
            .clone()
            .flat_map(|i| maps.apply(b.cluster[i], &b.x[i * hidden..(i + 1) * hidden]))
            .collect();
        let shape = [t as i64, hidden as i64];
        // x requires grad, as a layer's input inside a model does: the backward runs
        // both exchanges back (with data for x it would skip the dispatch's, ex 11.3).
        let (x, y) = (
            tensor(x, &shape).set_requires_grad(true),
            tensor(&y, &shape),
        );
        for (factor, room) in [(1.25, "1.25"), (EXPERTS as f64, "8: no drops")] {
            let cfg = MoeConfig::new(EXPERTS, K, factor).expect("valid settings");
            let step = || {
                let logits = x.matmul(&router);
                let pass = forward(world, &cfg, &nets, &x, &logits).expect("valid settings");
                let sq = (&pass.out - &y).square().sum(Kind::Float) / global as f64;
                let loss = sq + aux_loss(world, &pass.routing, &logits, ALPHA);
                backward(world, &pass, &loss);
                let mut params = nets.parameters();
                params.push(router.shallow_clone());
                trainer_kit::optim::zero_grads(&mut params);
                (pass.dispatched, pass.routing.dropped.iter().sum::<usize>())
            };
            for _ in 1..WARMUP {
                drop(step());
            }
            let (d, dropped) = step(); // the last warm-up: its counts are every step's
            let step_ms = best_of(world, rounds, steps, &mut || drop(step()));
            let alone_ms = best_of(world, rounds, steps, &mut || exchanges(world, &d));
            let h4 = (hidden * 4) as u64;
            let others = |c: &[usize]| (c.iter().sum::<usize>() - c[rank]) as u64 * h4;
            let (out, got) = (
                gathered(world, others(&d.send_counts)),
                gathered(world, others(&d.recv_counts)),
            );
            let dropped = gathered(world, dropped as u64).iter().sum::<u64>();
            let busiest = (0..p).max_by_key(|&r| got[r]).unwrap_or(0);
            if rank == 0 {
                print_row(&Row {
                    ep: p,
                    router: name.into(),
                    capacity: room.into(),
                    tokens_s: format!("{:.0}", global as f64 / (step_ms / 1e3)),
                    step_ms: format!("{step_ms:.2}"),
                    alone_ms: format!("{alone_ms:.2}"),
                    dropped: format!("{:.1}%", 100.0 * dropped as f64 / (global * K) as f64),
                    out_mean: out.iter().sum::<u64>() / p as u64,
                    out_max: *out.iter().max().unwrap_or(&0),
                    in_max: format!("{} (rank {busiest})", got[busiest]),
                    formula: (t * K) as u64 * h4 * (p as u64 - 1) / p as u64,
                });
            }
        }
    }
}

/// The step's four exchanges of rows, on the counts of dispatch `d`: the dispatch and the
/// combine forward, the combine's and the dispatch's backward.
fn exchanges(world: &SimpleCommunicator, d: &Dispatched) {
    let h = d.hidden;
    let (sent, got) = (
        d.send_counts.iter().sum::<usize>(),
        d.recv_counts.iter().sum::<usize>(),
    );
    let (out, back) = (vec![1f32; sent * h], vec![1f32; got * h]);
    for _ in 0..2 {
        let _ = exchange_rows(world, &out, &d.send_counts, &d.recv_counts, h);
        let _ = exchange_rows(world, &back, &d.recv_counts, &d.send_counts, h);
    }
}

/// The mean ms (the slowest rank's) of `f` repeated `steps` times, the best of `rounds`.
fn best_of(world: &SimpleCommunicator, rounds: usize, steps: usize, f: &mut dyn FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        world.barrier();
        let t0 = Instant::now();
        for _ in 0..steps {
            f();
        }
        let secs = Timing::over_ranks(world, t0.elapsed().as_secs_f64()).max;
        best = best.min(1e3 * secs / steps as f64);
    }
    best
}

/// One number per rank, on every rank.
fn gathered(world: &SimpleCommunicator, mine: u64) -> Vec<u64> {
    let mut all = vec![0u64; world.size() as usize];
    world.all_gather_into(&mine, &mut all[..]);
    all
}
