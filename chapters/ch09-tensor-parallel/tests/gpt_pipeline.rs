//! Checks of the GPT on a DP x TP x PP grid against one process: at 1, 2, 3, 4 and 8
//! ranks the layouts (dp x tp x pp, micro-batches m) 1x1x1 (m 2: the accumulation alone),
//! 1x1x2 (m 2), 1x1x3 (m 2), 2x1x2 (m 1), 1x2x2 (m 2) and 2x2x2 (m 2) train 3 steps of Adam in f64 on the same global batch as
//! one process with the whole model, 3 blocks (split 2 + 1 over two stages, 1 + 1 + 1
//! over three); the first step's gradients (every tensor each stage holds, both copies of
//! the tied table among them: the embedding group's sum), every step's loss and the
//! parameters after the last step are within the bounds of `compare::gpt_bound` and
//! `compare::adam_bound`, as in `tests/gpt.rs`. With m = 2 the micro-batches' gradients,
//! accumulated, must be the whole batch's. Also: bad pipeline grids and micro-batch
//! counts are refused before any communication.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_pipeline::`.

use crate::common;

use crate::common::within;
use ch09::compare::{adam_bound, gpt_bound, max_abs, max_diff};
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::GptConfig;
use ch09::grid::{Grid, Layout};
use ch09::pipeline::{check_micro, PipeTrainer};
use ch09::train::OneProcess;
use std::collections::HashMap;
use tch::{Kind, Tensor};
use toolkit::mpi_test;
use toolkit::tally;

const STEPS: u64 = 3;
const LR: f64 = 0.01;
const GLOBAL: usize = 4;

/// The layouts `(dp, tp, pp, m)` of `ranks` ranks the checks train on.
fn layouts(ranks: usize) -> &'static [(usize, usize, usize, usize)] {
    match ranks {
        1 => &[(1, 1, 1, 2)],
        2 => &[(1, 1, 2, 2)],
        3 => &[(1, 1, 3, 2)],
        4 => &[(2, 1, 2, 1), (1, 2, 2, 2)],
        _ => &[(2, 2, 2, 2)],
    }
}

/// The checks' GPT: 3 blocks (`common::gpt_model`), `batch` sequences a replica.
fn model(vocab: usize, batch: usize) -> GptConfig {
    common::gpt_model(vocab, batch, 3)
}

/// Each of `got`'s tensors against the tensor of the same name in `want`.
fn each_within(
    got: Vec<(String, &Tensor)>,
    want: &HashMap<String, Tensor>,
    what: impl Fn(&str) -> String,
    at: &str,
    bound: impl Fn(&Tensor) -> f64,
) -> Result<(), String> {
    for (name, g) in got {
        let w = want
            .get(&name)
            .ok_or(format!("{at}: {name} is not the model's"))?;
        within(&what(&name), at, max_diff(g, w), bound(w))?;
    }
    Ok(())
}

mpi_test! {
    fn the_pipeline_trains_like_one_process(world at &[1, 2, 3, 4, 8]) {
        let corpus = Corpus::book(&repository_root())?;
        let ranks = mpi::traits::Communicator::size(world) as usize;
        for &(dp, tp, pp, m) in layouts(ranks) {
            let cfg = model(corpus.vocab(), GLOBAL / dp);
            let whole = model(corpus.vocab(), GLOBAL);
            let grid = Grid::new(world, Layout::staged(dp, tp, pp, cfg.layers, ranks)?);
            let me = grid.me;
            let at = format!("{dp}x{tp}x{pp} (m {m}), rank (dp {}, tp {}, stage {})", me.dp, me.tp, me.pp);
            let mut mine = PipeTrainer::new(&grid, cfg, m, Kind::Double, 11, LR)?;
            let mut one = OneProcess::new(whole, Kind::Double, 11, LR);
            let longest = cfg.block.ffn.max(cfg.vocab).max(GLOBAL * cfg.block.seq);
            let named = |p: ch09::gpt::GptParams| -> HashMap<String, Tensor> {
                p.named().into_iter().map(|(n, t)| (n, t.shallow_clone())).collect()
            };
            let mut drift = 0.0;
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
                    let want = named(grads.shard(&whole, tp, me.tp)?);
                    let got = mine.params.named().into_iter().map(|(n, t)| (n, t.grad())).collect::<Vec<_>>();
                    let got = got.iter().map(|(n, g)| (n.clone(), g)).collect();
                    each_within(got, &want, |n| format!("the gradient of {n} at step 1"), &at, |w| gpt_bound(w, longest, cfg.layers))?;
                }
                drift += adam_bound(grad_bound, LR, 1);
            }
            let want = named(one.params.shard(&whole, tp, me.tp)?);
            each_within(mine.params.named(), &want, |n| format!("{n} after {STEPS} steps"), &at, |_| drift)?;
            let held = mine.params.named().len();
            let blocks = mine.params.blocks_at.len();
            let ends = [me.pp == 0, me.pp + 1 == pp];
            let want_held = 16 * blocks + 2 * usize::from(ends[1]) + usize::from(ends[0]) + usize::from(ends[0] || ends[1]);
            if held != want_held {
                return Err(format!("{at}: holds {held} tensors, expected {want_held} ({blocks} blocks)"));
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn bad_pipeline_grids_are_refused_before_any_communication(world at &[4]) {
        tally::start();
        let product = Layout::staged(2, 1, 3, 4, 4).err();
        let deep = Layout::staged(1, 1, 4, 3, 4).err();
        let micro = check_micro(4, 3).err();
        let calls = tally::stop();
        let expected = [
            (product, "--dp 2 x --tp 1 x --pp 3 is not the job's 4 ranks (dp * tp * pp must equal the ranks)"),
            (deep, "--pp 4 stages for 3 blocks: each stage needs at least one (--pp at most 3)"),
            (micro, "--micro 3 does not split a replica's 4 sequences into equal micro-batches"),
        ];
        for (got, want) in expected {
            if got.as_deref() != Some(want) {
                return Err(format!("{got:?}; expected `{want}`"));
            }
        }
        if !calls.is_empty() {
            return Err(format!("the refusals communicated first: {calls:?}"));
        }
        let _ = world;
        Ok(())
    }
}

#[test]
fn the_stages_split_the_blocks_evenly_in_order() {
    use ch09::stage::stage_blocks;
    let split: Vec<_> = (0..3).map(|s| stage_blocks(8, 3, s)).collect();
    assert_eq!(
        split,
        vec![0..3, 3..6, 6..8],
        "8 blocks over 3 stages: 3 + 3 + 2"
    );
    assert_eq!(stage_blocks(4, 4, 3), 3..4, "one block each");
    assert_eq!(stage_blocks(5, 1, 0), 0..5, "one stage holds them all");
}

#[test]
fn bad_pipeline_flags_fail_in_one_line_before_mpi_starts() {
    let exe = env!("CARGO_BIN_EXE_gpt");
    let cases: [(&[&str], &str); 5] = [
        (&["--pp", "2"], "--pp 2 does not divide the job's 3 ranks"),
        (
            &["--pp", "3"],
            "--pp 3 stages for 2 blocks: each stage needs at least one (--pp at most 2)",
        ),
        (
            &["--pp", "3", "--layers", "3", "--micro", "3"],
            "--micro 3 does not split a replica's 16 sequences into equal micro-batches",
        ),
        (&["--pp", "0"], "--pp 0 does not divide the job's 3 ranks"),
        (
            &[
                "--pp",
                "3",
                "--layers",
                "3",
                "--checkpoint",
                "no-ck",
                "--resume",
            ],
            "--resume: no-ck/manifest.ckpt: missing: not a checkpoint",
        ),
    ];
    trainer_kit::testing::check_refusals(exe, "gpt", 3, &cases);
}
