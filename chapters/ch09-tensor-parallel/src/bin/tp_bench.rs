//! Benchmark: the time of one tensor-parallel block's forward and backward at t = 1, 2
//! and 4 ranks (one mpirun each, started by this program), for a block where compute
//! dominates (h = 256, 4 x 64 tokens) and one where communication does (h = 32, 8
//! tokens), with the time inside the four allreduces beside the rest (compute), side by
//! side in one table.
//!
//! Run: `make bench CH=09` (release build). Each rank runs one thread (ranks share the
//! machine's cores: at t = 4 on 2 cores they take turns, which the table shows).
//! `--ranks 2` (a comma-separated list) runs only those t: `make anchors` puts the t = 2
//! row next to PyTorch's tensor parallelism on the same block; `--hidden H` widens the
//! compute-bound block (`make anchors` also runs it at h = 1024).
//! Writes target/workbook/ch09/tp_bench.csv.

use ch09::block::forward_backward;
use ch09::params::{BlockConfig, BlockParams};
use ch09::tp::Tp;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::{Device, Kind, Tensor};
use toolkit::bench::{at_rank_counts, load_average, print_row, rows, unbind_ranks};
use toolkit::report::{print_and_save, Timing};

/// The tensor-parallel sizes timed when `--ranks` does not say.
const RANKS: [u32; 3] = [1, 2, 4];

/// What the command line asks for: the rank counts (`--ranks 1,2`, else [`RANKS`]) and the
/// compute-bound block's width (`--hidden H`, a multiple of its 8 heads; else 256).
struct Args {
    ranks: Vec<u32>,
    hidden: Option<usize>,
}

/// The arguments, or `Err` in one line.
fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        ranks: RANKS.to_vec(),
        hidden: None,
    };
    let usage = "(the arguments are --ranks 1,2,4 and --hidden H)";
    for pair in args.chunks(2) {
        let number = |n: &str| n.trim().parse::<usize>().ok().filter(|&n| n > 0);
        match pair {
            [flag, list] if flag == "--ranks" => {
                out.ranks = list
                    .split(',')
                    .map(|n| number(n).map(|n| n as u32))
                    .collect::<Option<_>>()
                    .ok_or(format!(
                        "--ranks {list}: a comma-separated list of rank counts"
                    ))?
            }
            [flag, h] if flag == "--hidden" => match number(h) {
                Some(h) if h % 8 == 0 => out.hidden = Some(h),
                _ => return Err(format!("--hidden {h}: a multiple of the block's 8 heads")),
            },
            _ => return Err(format!("tp_bench: unknown arguments {args:?} {usage}")),
        }
    }
    Ok(out)
}
const WARMUP: usize = 2;

/// Timed steps and rounds: 10 and 3, or one each in a smoke run.
fn counts() -> (usize, usize) {
    toolkit::bench::sized((10, 3), (1, 1))
}

/// The two blocks: (name, batch, seq, hidden, heads), smaller in a smoke run; `--hidden`
/// sets the compute-bound block's width.
fn blocks() -> [(&'static str, usize, usize, usize, usize); 2] {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let hidden = parse(&args).ok().and_then(|a| a.hidden).unwrap_or(256);
    toolkit::bench::sized(
        [
            ("compute-bound", 4, 64, hidden, 8),
            ("communication-bound", 1, 8, 32, 4),
        ],
        [
            ("compute-bound", 1, 8, 32, 4),
            ("communication-bound", 1, 2, 8, 4),
        ],
    )
}

#[derive(Serialize, Deserialize, Tabled)]
struct Row {
    #[tabled(rename = "block")]
    block: String,
    #[tabled(rename = "t")]
    t: usize,
    #[tabled(rename = "fwd+bwd ms")]
    step_ms: String,
    #[tabled(rename = "in allreduces ms")]
    comm_ms: String,
    #[tabled(rename = "compute ms")]
    compute_ms: String,
    #[tabled(rename = "allreduce share")]
    share: String,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ranks = parse(&args)
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })
        .ranks;
    println!(
        "ranks not bound to cores ({}), load average {:.2}",
        unbind_ranks(),
        load_average()
    );
    let mut all: Vec<Row> = vec![];
    for (np, lines) in at_rank_counts(&ranks, Duration::from_secs(300)) {
        all.extend(rows::<Row>(&lines).unwrap_or_else(|e| panic!("NP={np}: {e}")));
    }
    all.sort_by_key(|r| (!r.block.starts_with("compute"), r.t)); // compute-bound first
    let path = print_and_save(&all, "ch09/tp_bench.csv").expect("write csv");
    let (steps, rounds) = counts();
    println!(
        "fwd+bwd: one block's forward and backward in f32, mean of {steps} after {WARMUP}, the \
         slowest rank's, best of {rounds} rounds; in allreduces: the time inside its 4 allreduces \
         (copies to and from MPI buffers included); compute: the rest"
    );
    println!("wrote {}", path.display());
}

fn inner(world: &SimpleCommunicator) {
    tch::set_num_threads(1);
    let tp = Tp::new(world);
    for (name, batch, seq, hidden, heads) in blocks() {
        let cfg = BlockConfig::new(batch, seq, hidden, heads).expect("a valid block");
        cfg.check(tp.size()).expect("t divides the heads");
        let p = BlockParams::whole(&cfg, Kind::Float, 7).shard(&cfg, tp.size(), tp.rank());
        let p = p.expect("a valid shard");
        let shape = [batch as i64, seq as i64, hidden as i64];
        let x = Tensor::randn(shape, (Kind::Float, Device::Cpu));
        let dy = Tensor::randn(shape, (Kind::Float, Device::Cpu));
        let step = || {
            let _ = forward_backward(&tp, &p, &cfg, &x, &dy);
        };
        for _ in 0..WARMUP {
            step();
        }
        let (steps, rounds) = counts();
        let mut best = (f64::INFINITY, 0.0);
        for _ in 0..rounds {
            world.barrier();
            let (t0, c0) = (Instant::now(), tp.time_in_allreduces());
            for _ in 0..steps {
                step();
            }
            let secs = t0.elapsed().as_secs_f64();
            let comm = (tp.time_in_allreduces() - c0).as_secs_f64();
            let ms = 1e3 * Timing::over_ranks(world, secs).max / steps as f64;
            let comm_ms = 1e3 * Timing::over_ranks(world, comm).max / steps as f64;
            if ms < best.0 {
                best = (ms, comm_ms);
            }
        }
        if world.rank() == 0 {
            let (ms, comm) = best;
            print_row(&Row {
                block: format!("{name} (h = {hidden}, {} tokens)", batch * seq),
                t: tp.size(),
                step_ms: format!("{ms:.3}"),
                comm_ms: format!("{comm:.3}"),
                compute_ms: format!("{:.3}", (ms - comm).max(0.0)),
                share: format!("{:.0}%", 100.0 * comm / ms),
            });
        }
    }
}
