//! Benchmark: attention over a whole sequence in one process, the chapter's way (in blocks,
//! each block pair by `partial::attend_block`, merged by ex 13.1's log-sum-exp, the causal
//! mask skipping whole blocks) or in one piece (`partial::full_attention`: one score matrix
//! of seq x seq per head). `make anchors` runs it next to PyTorch's fused
//! `scaled_dot_product_attention` on the same shapes (scripts/anchors/attn_job.py).
//! Prints `MS <best of the repetitions, in ms>`.
//!
//! Run: `cargo run --release -p ch13-context-parallel --features solution --bin
//! attention_bench -- --mode blocks --seq 4096 --block 512 --causal` (flags below; one
//! thread: `OMP_NUM_THREADS=1`).

use ch13::merge::merge;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use clap::Parser;
use std::time::Instant;
use tch::{Device, Kind, Tensor};

/// The benchmark's settings.
#[derive(Parser, Debug)]
#[command(name = "attention_bench", disable_version_flag = true)]
struct Flags {
    /// blocks (the chapter's blockwise attention) or whole (one piece)
    #[arg(long, value_parser = ["blocks", "whole"])]
    mode: String,
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

fn main() {
    let f = Flags::parse();
    if f.block <= 0 || f.seq % f.block != 0 {
        eprintln!(
            "attention_bench: --seq {} is not a multiple of --block {}",
            f.seq, f.block
        );
        std::process::exit(2);
    }
    tch::manual_seed(13);
    let shape = [1, f.heads, f.seq, f.head_dim];
    let [q, k, v] = [0; 3].map(|_| Tensor::randn(shape, (Kind::Float, Device::Cpu)));
    let once = || match f.mode.as_str() {
        "blocks" => blockwise(&q, &k, &v, f.block, f.causal),
        _ => full_attention(&q, &k, &v, f.causal),
    };
    let check = (once() - full_attention(&q, &k, &v, f.causal))
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
    println!("ERR {check:e}");
    println!("MS {:.3}", 1e3 * best);
}
