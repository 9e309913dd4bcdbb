//! Benchmark: attention over a whole sequence in one process, the chapter's way (in blocks,
//! each block pair by `partial::attend_block`, merged by ex 13.1's log-sum-exp, the causal
//! mask skipping whole blocks) or in one piece (`partial::full_attention`: one score matrix
//! of seq x seq per head). Without `--mode` it times both, causal and not, at 1024, 2048
//! and 4096 tokens and prints a table (ms, tokens/s, blocks against one piece); with
//! `--mode` one of them at `--seq`, printing `MS <best of the repetitions, in ms>`, which
//! `make anchors` runs next to PyTorch's fused `scaled_dot_product_attention` on the same
//! shapes (scripts/anchors/attn_job.py). `WORKBOOK_BENCH_SMOKE=1` (make bench-smoke): 256
//! tokens in blocks of 64, one repetition.
//!
//! Run: `cargo run --release -p ch13-context-parallel --features solution --bin
//! attention_bench` (the table; one thread: `OMP_NUM_THREADS=1`), or `... -- --mode blocks
//! --seq 4096 --block 512 --causal`.

use ch13::merge::merge;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use clap::Parser;
use std::time::Instant;
use tch::{Device, Kind, Tensor};

/// The benchmark's settings.
#[derive(Parser, Debug)]
#[command(name = "attention_bench", disable_version_flag = true)]
struct Flags {
    /// blocks (the chapter's blockwise attention) or whole (one piece) [default: both, a
    /// table over three lengths]
    #[arg(long, value_parser = ["blocks", "whole"])]
    mode: Option<String>,
    /// Tokens in the sequence (a multiple of --block)
    #[arg(long, default_value_t = 4096)]
    seq: i64,
    /// Tokens per block
    #[arg(long, default_value_t = 512)]
    block: i64,
    /// Attention heads
    #[arg(long, default_value_t = 4)]
    heads: i64,
    /// Features per head
    #[arg(long = "head-dim", default_value_t = 64)]
    head_dim: i64,
    /// A causal mask
    #[arg(long)]
    causal: bool,
    /// Timed repetitions (the best is printed)
    #[arg(long, default_value_t = 5)]
    reps: usize,
}

/// The attention of every query block over its key blocks, merged: the rows in order.
fn blockwise(q: &Tensor, k: &Tensor, v: &Tensor, block: i64, causal: bool) -> Tensor {
    let n = q.size()[2] / block;
    let cut = |x: &Tensor, i: i64| x.narrow(2, i * block, block);
    let rows: Vec<Tensor> = (0..n)
        .map(|i| {
            let last = if causal { i } else { n - 1 };
            let part = |j: i64| {
                let mask = if causal && j == i {
                    Mask::Diagonal
                } else {
                    Mask::Full
                };
                attend_block(&cut(q, i), &cut(k, j), &cut(v, j), mask)
            };
            let merged: Partial = (0..=last)
                .map(part)
                .reduce(|a, b| merge(&a, &b))
                .expect("a block");
            merged.out
        })
        .collect();
    Tensor::cat(&rows, 2)
}

/// The best of `reps` timings of attention over `seq` tokens, in `mode`, and its largest
/// difference from one piece.
fn time(f: &Flags, mode: &str, seq: i64, causal: bool) -> (f64, f64) {
    tch::manual_seed(13);
    let shape = [1, f.heads, seq, f.head_dim];
    let [q, k, v] = [0; 3].map(|_| Tensor::randn(shape, (Kind::Float, Device::Cpu)));
    let once = || match mode {
        "blocks" => blockwise(&q, &k, &v, f.block, causal),
        _ => full_attention(&q, &k, &v, causal),
    };
    let err = (once() - full_attention(&q, &k, &v, causal))
        .abs()
        .max()
        .double_value(&[]);
    let best = (0..f.reps)
        .map(|_| {
            let t = Instant::now();
            drop(once());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    (best, err)
}

fn main() {
    let mut f = Flags::parse();
    let smoke = std::env::var_os("WORKBOOK_BENCH_SMOKE").is_some();
    if smoke {
        (f.seq, f.block, f.reps) = (256, 64, 1);
    }
    let seqs: Vec<i64> = match (&f.mode, smoke) {
        (Some(_), _) | (None, true) => vec![f.seq],
        (None, false) => vec![1024, 2048, 4096],
    };
    if let Some(bad) = seqs.iter().find(|&&n| f.block <= 0 || n % f.block != 0) {
        eprintln!(
            "attention_bench: --seq {bad} is not a multiple of --block {}",
            f.block
        );
        std::process::exit(2);
    }
    if let Some(mode) = f.mode.clone() {
        let (best, err) = time(&f, &mode, f.seq, f.causal);
        println!("ERR {err:e}");
        println!("MS {:.3}", 1e3 * best);
        return;
    }
    println!(
        "attention over a whole sequence, one process, {} thread(s), f32, {} heads x {}; \
         blocks of {} tokens merged by ex 13.1 against one piece; ms: the best of {}",
        tch::get_num_threads(),
        f.heads,
        f.head_dim,
        f.block,
        f.reps
    );
    println!(
        "{:>6} {:>7} {:>10} {:>12} {:>10} {:>12} {:>15} {:>9}",
        "tokens", "mask", "blocks ms", "tokens/s", "piece ms", "tokens/s", "blocks / piece", "err"
    );
    for &seq in &seqs {
        for causal in [true, false] {
            let (b, err) = time(&f, "blocks", seq, causal);
            let (w, _) = time(&f, "whole", seq, causal);
            println!(
                "{seq:>6} {:>7} {:>10.2} {:>12.0} {:>10.2} {:>12.0} {:>14.2}x {:>9.1e}",
                if causal { "causal" } else { "full" },
                1e3 * b,
                seq as f64 / b,
                1e3 * w,
                seq as f64 / w,
                w / b,
                err
            );
        }
    }
    println!(
        "(blocks / piece: how many times faster the blocks are; err: the largest |blocks - piece|)"
    );
}
