//! Benchmark: the GPT's tokens/s on every DP x TP x PP layout of the job's ranks, in one
//! run (one mpirun, started by this program at NP ranks, 4 by default), with one step's
//! bytes on each communicator: TP (allreduces), DP (the gradients' allreduce), PP
//! (sends between stages), the embedding group.
//!
//! Run: `make bench CH=09` (release build; `NP=8` for 8 ranks). The model: 4 blocks, h =
//! 96, 6 heads, context 64, global batch 16, f32; a layout is timed when its TP size
//! divides the heads, its stages are at most the blocks and its replicas split the batch;
//! GPipe over 4 micro-batches when pp > 1. Each rank runs one thread: at 4 ranks on 2
//! cores they take turns, so the table compares the layouts' costs on this machine, not
//! their speed on one core each. Writes target/workbook/ch09/gpt_layouts.csv.

use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::GptConfig;
use ch09::grid::{Grid, Layout};
use ch09::params::BlockConfig;
use ch09::pipeline::PipeTrainer;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::Kind;
use toolkit::bench::{at_rank_counts, load_average, print_row, rows, unbind_ranks};
use toolkit::report::print_and_save;

const GLOBAL: usize = 16;
const HEADS: usize = 6;

/// (layers, hidden, seq, steps timed): smaller in a smoke run.
fn sizes() -> (usize, usize, usize, u64) {
    toolkit::bench::sized((4, 96, 64, 6), (2, 12, 8, 1))
}

/// The layouts `(dp, tp, pp, micro-batches)` of `n` ranks for `layers` blocks.
fn layouts(n: usize, layers: usize) -> Vec<(usize, usize, usize, usize)> {
    let mut all = vec![];
    for pp in 1..=n.min(layers) {
        for tp in (1..=n).filter(|tp| HEADS.is_multiple_of(*tp)) {
            if !n.is_multiple_of(pp * tp) {
                continue;
            }
            let dp = n / (pp * tp);
            let m = if pp > 1 { 4 } else { 1 };
            if GLOBAL.is_multiple_of(dp) && (GLOBAL / dp).is_multiple_of(m) {
                all.push((dp, tp, pp, m));
            }
        }
    }
    all
}

#[derive(Serialize, Deserialize, Tabled)]
struct Row {
    #[tabled(rename = "dp x tp x pp")]
    layout: String,
    #[tabled(rename = "micro-batches")]
    micro: usize,
    #[tabled(rename = "tokens/s")]
    rate: String,
    #[tabled(rename = "TP B/step")]
    tp: i64,
    #[tabled(rename = "DP B/step")]
    dp: i64,
    #[tabled(rename = "PP B/step")]
    pp: i64,
    #[tabled(rename = "embedding B/step")]
    embedding: i64,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    let np = std::env::var("NP")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    println!(
        "ranks not bound to cores ({}), load average {:.2}",
        unbind_ranks(),
        load_average()
    );
    let mut all: Vec<Row> = vec![];
    for (np, lines) in at_rank_counts(&[np], Duration::from_secs(300)) {
        all.extend(rows::<Row>(&lines).unwrap_or_else(|e| panic!("NP={np}: {e}")));
    }
    let path = print_and_save(&all, "ch09/gpt_layouts.csv").expect("write csv");
    let (layers, hidden, seq, steps) = sizes();
    println!(
        "tokens/s: {GLOBAL} x {seq} tokens a step over {steps} steps after one, the slowest rank's \
         time; {layers} blocks, h = {hidden}, {HEADS} heads, f32; bytes: one step's, the most any \
         rank sent on that communicator (0 on a group of one rank)"
    );
    println!("wrote {}", path.display());
}

fn inner(world: &SimpleCommunicator) {
    tch::set_num_threads(1);
    let corpus = Corpus::book(&repository_root()).expect("the book's pages");
    let (layers, hidden, seq, steps) = sizes();
    let n = world.size() as usize;
    for (dp, tp, pp, m) in layouts(n, layers) {
        let layout = Layout::staged(dp, tp, pp, layers, n).expect("a layout of n ranks");
        let grid = Grid::new(world, layout);
        let block = BlockConfig::new(GLOBAL / dp, seq, hidden, HEADS).expect("a valid block");
        let cfg = GptConfig {
            vocab: corpus.vocab(),
            layers,
            block,
        };
        let mut tr = PipeTrainer::new(&grid, cfg, m, Kind::Float, 9, 0.003).expect("a trainer");
        let mut stats = tr.step(&corpus, 9, 0);
        world.barrier();
        let start = Instant::now();
        for step in 1..=steps {
            stats = tr.step(&corpus, 9, step);
        }
        let mine = [start.elapsed().as_secs_f64()];
        let mut slowest = [0.0];
        world.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
        // An allreduce over a group of one rank sends nothing: 0, not the bytes passed to it.
        let alone = |size: usize, b: i64| if size == 1 { 0 } else { b };
        let bytes = [
            alone(tp, stats.tp_calls.1),
            alone(dp, stats.dp_calls.1),
            stats.pp_sends.1,
            stats.embedding_calls.1,
        ];
        let mut most = [0i64; 4];
        world.all_reduce_into(&bytes[..], &mut most[..], SystemOperation::max());
        if world.rank() == 0 {
            let tokens = (GLOBAL * seq) as f64 * steps as f64;
            print_row(&Row {
                layout: format!("{dp} x {tp} x {pp}"),
                micro: m,
                rate: format!("{:.0}", tokens / slowest[0]),
                tp: most[0],
                dp: most[1],
                pp: most[2],
                embedding: most[3],
            });
        }
    }
}
