//! Checks of chapter 9's GPT with context parallelism against one process: under mpirun at
//! 2, 3 and 4 ranks in one launch per test, layouts (cp x dp x tp x pp) with each
//! attention the lab offers: ring (ex 13.2, 13.5) at 2x1x1x1, 3x1x1x1, 2x2x1x1, 2x1x2x1 and
//! 2x1x1x2 (GPipe, 2 micro-batches); then, in a test of their own (their backward passes
//! are optional exercises), the zig-zag ring (ex 13.3, 13.7) at 2x1x1x1, 3x1x1x1 and
//! 2x2x1x1, and Ulysses (ex 13.4, 13.6) at 2x1x1x1, 3x1x1x1, 2x1x2x1 and 2x1x1x2. Each trains 3 steps
//! of Adam in f64 on the same global batch as one process with the whole model and
//! sequence; every step's loss, the first step's gradients and the parameters after the
//! last are within chapter 9's bounds (`compare::gpt_bound`, `compare::adam_bound`). Then
//! the checkpoint saved at cp 2 x tp 2 is read at cp 1 x tp 4 and holds the same
//! parameters. Run: `make check CH=13` (after chapter 9's exercises and 13.1, 13.2, 13.5; the second test after 13.3, 13.4, 13.6, 13.7) or
//! `cargo test -p ch13-context-parallel --features solution --test main gpt::`.

use ch09::compare::{adam_bound, gpt_bound, max_abs, max_diff};
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::{GptConfig, GptParams};
use ch09::gpt_ckpt_read::open_for;
use ch09::gpt_lab::LabTrainer;
use ch09::grid::{Grid, Layout};
use ch09::params::BlockConfig;
use ch09::pipeline::PipeTrainer;
use ch09::train::{GridTrainer, OneProcess};
use ch13::context::{Attention, CpContext};
use ch13::gpt_cp::{CpGrid, CpLayout, CpTrainer};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::HashMap;
use tch::{Kind, Tensor};
use toolkit::mpi_test;

const STEPS: u64 = 3;
const LR: f64 = 0.01;
const GLOBAL: usize = 4;

/// A layout `(cp, dp, tp, pp, micro)` and the attention over its CP group.
type Case = ((usize, usize, usize, usize, usize), Attention);

/// The cases of ring attention at `ranks` ranks.
fn ring_cases(ranks: usize) -> &'static [Case] {
    use Attention::Ring;
    match ranks {
        2 => &[((2, 1, 1, 1, 1), Ring)],
        3 => &[((3, 1, 1, 1, 1), Ring)],
        _ => &[
            ((2, 2, 1, 1, 1), Ring),
            ((2, 1, 1, 2, 2), Ring),
            ((2, 1, 2, 1, 1), Ring),
        ],
    }
}

/// The cases of the zig-zag ring and Ulysses at `ranks` ranks.
fn other_cases(ranks: usize) -> &'static [Case] {
    use Attention::{Ulysses, Zigzag};
    match ranks {
        2 => &[((2, 1, 1, 1, 1), Zigzag), ((2, 1, 1, 1, 1), Ulysses)],
        3 => &[((3, 1, 1, 1, 1), Zigzag), ((3, 1, 1, 1, 1), Ulysses)],
        _ => &[
            ((2, 2, 1, 1, 1), Zigzag),
            ((2, 1, 2, 1, 1), Ulysses),
            ((2, 1, 1, 2, 2), Ulysses),
        ],
    }
}

/// The checks' GPT: 2 blocks of 12 heads of 4 features, a context of 12 characters (2, 3
/// and 4 divide it), `batch` sequences a replica.
fn model(vocab: usize, batch: usize) -> GptConfig {
    tch::set_num_threads(1); // ranks share 2 cores in the tests
    let block = BlockConfig::new(batch, 12, 48, 12).expect("12 heads divide 48");
    GptConfig {
        vocab,
        layers: 2,
        block,
    }
}

/// Tensors by name (shallow copies).
fn by_name(named: Vec<(String, &Tensor)>) -> HashMap<String, Tensor> {
    named
        .into_iter()
        .map(|(n, t)| (n, t.shallow_clone()))
        .collect()
}

/// `Err` naming `what` at `at` when `d` exceeds `bound`.
fn within(what: &str, at: &str, d: f64, bound: f64) -> Result<(), String> {
    match d <= bound {
        true => Ok(()),
        false => Err(format!(
            "{at}: {what} differs from one process's by {d:.3e} (bound {bound:.1e})"
        )),
    }
}

/// Every tensor of `got` against the one of `want` with its name.
fn each_within(
    got: &HashMap<String, Tensor>,
    want: &HashMap<String, Tensor>,
    what: &str,
    at: &str,
    bound: impl Fn(&Tensor) -> f64,
) -> Result<(), String> {
    for (name, g) in got {
        let w = want
            .get(name)
            .ok_or(format!("{at}: {name} is not the model's"))?;
        within(&format!("{what} of {name}"), at, max_diff(g, w), bound(w))?;
    }
    Ok(())
}

/// Trains `tr` (whose tensors `named` gives) and one process side by side; `Ok(one
/// process, the parameters' bound)` when every check holds.
fn trains_like_one_process<T: LabTrainer>(
    tr: &mut T,
    named: impl Fn(&T) -> HashMap<String, Tensor>,
    corpus: &Corpus,
    (tp, me_tp, dp): (usize, usize, usize),
    at: &str,
) -> Result<(OneProcess, f64), String> {
    let cfg = model(corpus.vocab(), GLOBAL / dp);
    let whole = model(corpus.vocab(), GLOBAL);
    let mut one = OneProcess::new(whole, Kind::Double, 11, LR);
    let longest = cfg.block.ffn.max(cfg.vocab).max(GLOBAL * cfg.block.seq);
    let shard =
        |p: GptParams| -> Result<_, String> { Ok(by_name(p.shard(&whole, tp, me_tp)?.named())) };
    let mut drift = 0.0;
    for step in 1..=STEPS {
        let got = tr.step(corpus, 5, step);
        let got = tr.mean_over_replicas(got.loss);
        let want = one.step(corpus, 5, step);
        let grads = one.params.grads();
        let l1: f64 = grads
            .named()
            .iter()
            .map(|(_, g)| g.abs().sum(Kind::Double).double_value(&[]))
            .sum();
        let loss_bound = gpt_bound(&Tensor::from(want), longest, cfg.layers) + l1 * drift;
        within(
            &format!("the loss of step {step}"),
            at,
            (got - want).abs(),
            loss_bound,
        )?;
        let worst = grads
            .named()
            .iter()
            .map(|(_, g)| max_abs(g))
            .fold(0.0, f64::max);
        if step == 1 {
            let got: HashMap<String, Tensor> =
                named(tr).into_iter().map(|(n, t)| (n, t.grad())).collect();
            let bound = |w: &Tensor| gpt_bound(w, longest, cfg.layers);
            each_within(&got, &shard(grads)?, "the gradient at step 1", at, bound)?;
        }
        drift += adam_bound(gpt_bound(&Tensor::from(worst), longest, cfg.layers), LR, 1);
    }
    let want = by_name(one.params.shard(&whole, tp, me_tp)?.named());
    each_within(&named(tr), &want, "after 3 steps", at, |_| drift)?;
    Ok((one, drift))
}

/// The checkpoint `tr` saves at cp 2 x tp 2, read at cp 1 x tp 4: its parameters are
/// `one`'s within `drift`.
fn resumes_at_another_cp(
    world: &SimpleCommunicator,
    tr: &impl LabTrainer,
    one: &OneProcess,
    drift: f64,
    vocab: usize,
) -> Result<(), String> {
    let mut pid = std::process::id();
    world.process_at_rank(0).broadcast_into(&mut pid);
    let dir = std::env::temp_dir().join(format!("ch13-gpt-cp-{pid}"));
    tr.save(world, &dir, STEPS)?;
    let grid = Grid::new(world, Layout::new(1, 4, 4)?);
    let mut at_one = GridTrainer::new(&grid, model(vocab, GLOBAL), Kind::Double, 99, LR)?;
    let read = open_for(&dir, &at_one).and_then(|saved| saved.install(&mut at_one));
    world.barrier();
    if world.rank() == 0 {
        std::fs::remove_dir_all(&dir).ok();
    }
    read?;
    let at = format!(
        "saved at cp 2 x tp 2, read at cp 1 x tp 4, rank {}",
        world.rank()
    );
    let want = by_name(one.params.shard(&one.cfg, 4, grid.me.tp)?.named());
    each_within(
        &by_name(at_one.params.named()),
        &want,
        "read back",
        &at,
        |_| drift,
    )
}

/// Every case of `cases` trains like one process; at cp 2 x tp 2 with the ring, the
/// checkpoint resumes at cp 1 x tp 4.
fn cases_train_like_one_process(world: &SimpleCommunicator, cases: &[Case]) -> Result<(), String> {
    let corpus = Corpus::book(&repository_root())?;
    let ranks = world.size() as usize;
    for &((cp, dp, tp, pp, m), attention) in cases {
        let cfg = model(corpus.vocab(), GLOBAL / dp);
        let layout = CpLayout {
            cp,
            grid: Layout::staged(dp, tp, pp, cfg.layers, ranks / cp)?,
        };
        let grid = CpGrid::new(world, layout);
        let context = CpContext::new(&grid.cp, attention);
        let me = grid.grid.me;
        let at = format!(
            "{attention:?} attention, cp {cp} x dp {dp} x tp {tp} x pp {pp} (m {m}), rank (cp {}, dp {}, tp {}, stage {})",
            grid.cp_rank, me.dp, me.tp, me.pp
        );
        let shape = (tp, me.tp, dp);
        if pp > 1 {
            let mut tr = PipeTrainer::new(&grid.grid, cfg, m, Kind::Double, 11, LR)?;
            (tr.tp, tr.dp) = (grid.tp(&context), grid.data_group());
            trains_like_one_process(&mut tr, |t| by_name(t.params.named()), &corpus, shape, &at)?;
            continue;
        }
        let mut tr = GridTrainer::new(&grid.grid, cfg, Kind::Double, 11, LR)?;
        (tr.tp, tr.dp) = (grid.tp(&context), grid.data_group());
        let (one, drift) =
            trains_like_one_process(&mut tr, |t| by_name(t.params.named()), &corpus, shape, &at)?;
        if tp == 2 && attention == Attention::Ring {
            let tr = CpTrainer {
                inner: tr,
                grid: &grid,
            };
            resumes_at_another_cp(world, &tr, &one, drift, corpus.vocab())?;
        }
    }
    Ok(())
}

mpi_test! {
    fn the_gpt_with_cp_trains_like_one_process(world at &[2, 3, 4]) {
        cases_train_like_one_process(world, ring_cases(world.size() as usize))
    }
}

mpi_test! {
    fn the_gpt_with_zigzag_or_ulysses_trains_like_one_process(world at &[2, 3, 4]) {
        cases_train_like_one_process(world, other_cases(world.size() as usize))
    }
}

mpi_test! {
    fn activations_per_rank_fall_as_one_over_cp(world at &[2]) {
        if ch07::heap::in_use().is_none() {
            return Ok(()); // no glibc: the heap cannot be read (the lab says so too)
        }
        let corpus = Corpus::book(&repository_root())?;
        tch::set_num_threads(1);
        let cfg = |seq| ch13::memory::model(corpus.vocab(), 4, seq);
        let held = |seq, cp| ch13::memory::held_by_forward(world, &corpus, &cfg(seq), cp) as f64;
        held(256, 1); // LibTorch's first allocations
        let (one, two, longer) = (held(256, 1), held(256, 2), held(512, 1));
        let checks = [("CP 2 against CP 1", two / one, 0.5), ("twice the context at CP 1", longer / one, 2.0)];
        for (what, ratio, want) in checks {
            if (ratio / want - 1.0).abs() > 0.05 {
                return Err(format!("{what}: the forward keeps {ratio:.3}x the bytes, expected {want}x within 5% (A b s / cp)"));
            }
        }
        Ok(())
    }
}
