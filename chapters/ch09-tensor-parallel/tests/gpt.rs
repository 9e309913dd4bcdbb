//! Checks of the GPT on a DP x TP grid against one process: at 1, 2, 3, 4 and 8 ranks,
//! the layouts (dp x tp) 1x1, 2x1, 1x2, 1x3, 2x2, 1x4 and 4x2 train 3 steps of Adam in
//! f64 on the same global batch as one process with the whole model; the first step's
//! gradients (every rank's slice of every tensor), every step's loss and the parameters
//! after the last step are within the bounds of `compare::gpt_bound` and
//! `compare::adam_bound`. Also: the replicas' batches make up the global batch, and bad
//! layouts are refused before any communication.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt::`.

use crate::common;

use crate::common::within;
use ch09::compare::{adam_bound, gpt_bound, max_abs, max_diff};
use ch09::corpus::{repository_root, Corpus, Split};
use ch09::gpt::GptConfig;
use ch09::grid::{Grid, Layout};
use ch09::params::BlockConfig;
use ch09::train::{replica_rows, GridTrainer, OneProcess};
use tch::{Kind, Tensor};
use toolkit::mpi_test;
use toolkit::tally;

const STEPS: u64 = 3;
const LR: f64 = 0.01;
const GLOBAL: usize = 4;

/// The layouts of `ranks` ranks the checks train on.
fn layouts(ranks: usize) -> &'static [(usize, usize)] {
    match ranks {
        1 => &[(1, 1)],
        2 => &[(2, 1), (1, 2)],
        3 => &[(1, 3)],
        4 => &[(2, 2), (1, 4)],
        _ => &[(4, 2)],
    }
}

/// The checks' GPT: 2 blocks (`common::gpt_model`), `batch` sequences a replica.
fn model(vocab: usize, batch: usize) -> GptConfig {
    common::gpt_model(vocab, batch, 2)
}

mpi_test! {
    fn the_grid_trains_like_one_process(world at &[1, 2, 3, 4, 8]) {
        let corpus = Corpus::book(&repository_root())?;
        let ranks = mpi::traits::Communicator::size(world) as usize;
        for &(dp, tp) in layouts(ranks) {
            let grid = Grid::new(world, Layout::new(dp, tp, ranks)?);
            let cfg = model(corpus.vocab(), GLOBAL / dp);
            let whole = model(corpus.vocab(), GLOBAL);
            let at = format!("dp {dp} x tp {tp}, rank ({}, {})", grid.me.dp, grid.me.tp);
            let mut mine = GridTrainer::new(&grid, cfg, Kind::Double, 11, LR)?;
            let mut one = OneProcess::new(whole, Kind::Double, 11, LR);
            let longest = cfg.block.ffn.max(cfg.vocab).max(GLOBAL * cfg.block.seq);
            let mut drift = 0.0; // the parameters' bound so far
            for step in 1..=STEPS {
                let got = mine.step(&corpus, 5, step);
                let got = mine.mean_over_replicas(got.loss);
                let want = one.step(&corpus, 5, step);
                let grads = one.params.grads();
                let l1: f64 = grads.named().iter().map(|(_, g)| g.abs().sum(Kind::Double).double_value(&[])).sum();
                let loss_bound = gpt_bound(&Tensor::from(want), longest, cfg.layers) + l1 * drift;
                within(&format!("the loss of step {step}"), &at, (got - want).abs(), loss_bound)?;
                let worst = grads.named().iter().map(|(_, g)| max_abs(g)).fold(0.0, f64::max);
                let grad_bound = gpt_bound(&Tensor::from(worst), longest, cfg.layers);
                if step == 1 {
                    let want = grads.shard(&whole, tp, grid.me.tp)?;
                    let got = mine.params.grads();
                    for ((name, g), (_, w)) in got.named().into_iter().zip(want.named()) {
                        let bound = gpt_bound(w, longest, cfg.layers);
                        within(&format!("the gradient of {name} at step 1"), &at, max_diff(g, w), bound)?;
                    }
                }
                drift += adam_bound(grad_bound, LR, 1);
            }
            let want = one.params.shard(&whole, tp, grid.me.tp)?;
            for ((name, g), (_, w)) in mine.params.named().into_iter().zip(want.named()) {
                within(&format!("{name} after {STEPS} steps"), &at, max_diff(g, w), drift)?;
            }
        }
        Ok(())
    }
}

#[test]
fn the_replicas_batches_make_up_the_global_batch() {
    let corpus = Corpus::from_pages(&["the quick brown fox jumps over the lazy dog. ".repeat(20)]);
    let (global, seq) = (6, 10);
    let (x, y) = corpus.batch(Split::Train, 3, 7, global, seq, 0..global);
    assert_eq!(x.size(), vec![6, 10]);
    assert_eq!(
        x.narrow(1, 1, seq as i64 - 1),
        y.narrow(1, 0, seq as i64 - 1),
        "targets are the inputs shifted by one"
    );
    let parts: Vec<Tensor> = (0..3)
        .map(|d| {
            corpus
                .batch(Split::Train, 3, 7, global, seq, replica_rows(global, 3, d))
                .0
        })
        .collect();
    assert_eq!(
        Tensor::cat(&parts, 0),
        x,
        "the replicas' rows, in order, are the global batch"
    );
    assert_ne!(
        parts[0], parts[1],
        "two replicas train on different windows"
    );
    let next = corpus.batch(Split::Train, 3, 8, global, seq, 0..global).0;
    assert_ne!(next, x, "the next step draws other windows");
    let text = "the lazy fox";
    assert_eq!(
        corpus.decode(&corpus.encode(text).expect("its characters")),
        text
    );
    let refused = corpus.encode("Zebra").err();
    assert_eq!(
        refused.as_deref(),
        Some("the character 'Z' is not in the corpus's vocabulary")
    );
}

mpi_test! {
    fn bad_grids_are_refused_before_any_communication(world at &[3]) {
        tally::start();
        let product = Layout::new(2, 2, 3).err();
        let heads = GptConfig { vocab: 50, layers: 1, block: BlockConfig::new(2, 5, 32, 8)? }.check(3).err();
        let calls = tally::stop();
        let want = "--dp 2 x --tp 2 is not the job's 3 ranks (dp * tp must equal the ranks)";
        if product.as_deref() != Some(want) {
            return Err(format!("2 x 2 at 3 ranks: {product:?}; expected `{want}`"));
        }
        let want = "tensor-parallel size 3 does not divide the 8 heads";
        if heads.as_deref() != Some(want) {
            return Err(format!("8 heads at tp 3: {heads:?}; expected `{want}`"));
        }
        if !calls.is_empty() {
            return Err(format!("the refusals communicated first: {calls:?}"));
        }
        let _ = world;
        Ok(())
    }
}
