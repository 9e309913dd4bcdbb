//! Shared test setup for chapter 9: the block's shape, the comparison of a sharded result
//! with one process's, and the checks of the MLP (ex 9.4) and the vocabulary's shards (ex
//! 9.1), each taking the code under test as an argument, so that the planted mistakes run
//! through the same checks.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch09::compare::{block_bound, max_diff};
use ch09::params::{BlockConfig, BlockParams};
use ch09::tape::Tape;
use ch09::tp::Tp;
use std::ops::Range;
use tch::{Device, Kind, Tensor};

/// The rank counts every MPI check runs at.
pub const RANKS: &[u32] = &[1, 2, 3, 4];

/// A small block: 12 heads (divided by 1, 2, 3, 4) of 4 features, 2 x 5 tokens.
pub fn config() -> BlockConfig {
    tch::set_num_threads(1); // ranks share 2 cores in the tests
    BlockConfig::new(2, 5, 48, 12).expect("12 heads divide 48")
}

/// A tensor of `shape` drawn from `seed` (the same on every rank).
pub fn drawn(shape: &[i64], kind: Kind, seed: i64) -> Tensor {
    tch::manual_seed(seed);
    Tensor::randn(shape, (kind, Device::Cpu))
}

/// Block `rank` of `total` split evenly over `t` (computed here rather than by ex 9.1, so
/// that each exercise's checks depend on that exercise: `t` divides `total` in them).
pub fn even(total: usize, t: usize, rank: usize) -> Range<usize> {
    assert_eq!(
        total % t,
        0,
        "the tests' shapes divide by every t they run at"
    );
    let per = total / t;
    rank * per..(rank + 1) * per
}

/// The vocabulary ids of `rank`: the first `vocab % t` ranks one more (computed here
/// rather than by ex 9.1).
pub fn vocab_ids(vocab: usize, t: usize, rank: usize) -> Range<usize> {
    let (per, extra) = (vocab / t, vocab % t);
    let start = rank * per + rank.min(extra);
    start..start + per + usize::from(rank < extra)
}

/// Rank `rank`'s shard of `whole` (a block of parameters or of their gradients), as new
/// leaves: cut here with `narrow` rather than by ex 9.1 and 9.3's functions (the
/// block's own `BlockParams::shard`), so that the checks of ex 9.4 to 9.6 depend on those
/// exercises alone.
pub fn shard_of(whole: &BlockParams, cfg: &BlockConfig, t: usize, rank: usize) -> BlockParams {
    let d = cfg.head_dim();
    let heads = even(cfg.heads, t, rank);
    let (c0, cn) = ((heads.start * d) as i64, (heads.len() * d) as i64);
    let f = even(cfg.ffn, t, rank);
    let (f0, fnum) = (f.start as i64, f.len() as i64);
    let leaf = |t: &Tensor| t.detach().copy().set_requires_grad(true);
    let rows = |t: &Tensor, s: i64, n: i64| leaf(&t.narrow(0, s, n));
    let cols = |t: &Tensor, s: i64, n: i64| leaf(&t.narrow(1, s, n));
    let w = whole;
    BlockParams {
        ln1_w: leaf(&w.ln1_w),
        ln1_b: leaf(&w.ln1_b),
        wq: rows(&w.wq, c0, cn),
        bq: rows(&w.bq, c0, cn),
        wk: rows(&w.wk, c0, cn),
        bk: rows(&w.bk, c0, cn),
        wv: rows(&w.wv, c0, cn),
        bv: rows(&w.bv, c0, cn),
        wo: cols(&w.wo, c0, cn),
        bo: leaf(&w.bo),
        ln2_w: leaf(&w.ln2_w),
        ln2_b: leaf(&w.ln2_b),
        w1: rows(&w.w1, f0, fnum),
        b1: rows(&w.b1, f0, fnum),
        w2: cols(&w.w2, f0, fnum),
        b2: leaf(&w.b2),
    }
}

/// One comparison with one process: the block drawn from seed 7 in `kind`, an input `x`
/// (seed 8, requiring grad) and an output gradient `dy` (seed 9), the same on every rank.
pub struct Case {
    pub cfg: BlockConfig,
    pub whole: BlockParams,
    pub x: Tensor,
    pub dy: Tensor,
}

impl Case {
    /// The comparison in `kind`, at the shape of [`config`].
    pub fn new(kind: Kind) -> Self {
        Self::at(config(), kind)
    }

    /// The comparison in `kind`, at the shape `cfg`.
    pub fn at(cfg: BlockConfig, kind: Kind) -> Self {
        let whole = BlockParams::whole(&cfg, kind, 7);
        let shape = [cfg.batch as i64, cfg.seq as i64, cfg.hidden as i64];
        let x = drawn(&shape, kind, 8).set_requires_grad(true);
        let dy = drawn(&shape, kind, 9);
        Case { cfg, whole, x, dy }
    }

    /// One process: `one(whole, x)` and its backward with `dy` (the gradients land in
    /// `whole` and `x`); returns its output and rank r of t's slices of its gradients.
    pub fn reference(
        &self,
        t: usize,
        r: usize,
        one: impl Fn(&BlockParams, &Tensor) -> Tensor,
    ) -> (Tensor, BlockParams) {
        let want = one(&self.whole, &self.x);
        ch09::tape::backward_from(&want, &self.dy);
        (want, shard_of(&self.whole.grads(), &self.cfg, t, r))
    }
}

/// `Err` naming `what` on rank `r` of `t` when `got` is further than `bound` from `want`.
pub fn close(what: &str, tp: &Tp, got: &Tensor, want: &Tensor, bound: f64) -> Result<(), String> {
    if got.size() != want.size() {
        return Err(format!(
            "rank {} of {}: {what} has shape {:?}, expected {:?}",
            tp.rank(),
            tp.size(),
            got.size(),
            want.size()
        ));
    }
    let d = max_diff(got, want);
    match d <= bound {
        true => Ok(()),
        false => Err(format!(
            "rank {} of {}: {what} differs from one process's by {d:.3e} (bound {bound:.1e})",
            tp.rank(),
            tp.size()
        )),
    }
}

/// The MLP of the block: a sharded forward (`forward`, on rank r's shard) and the tape's
/// backward, against the one-process MLP: the output, the input's gradient, and the
/// gradients of rank r's slices of W1, b1, W2, b2, each within the block's bound. Says
/// which of them is wrong, and what that points to.
pub fn check_mlp(
    tp: &Tp,
    kind: Kind,
    forward: impl for<'a> Fn(&mut Tape<'a>, &'a Tp, &BlockParams, &Tensor) -> Tensor,
) -> Result<(), String> {
    let (t, r) = (tp.size(), tp.rank());
    let case = Case::new(kind);
    let (cfg, whole, x, dy) = (&case.cfg, &case.whole, &case.x, &case.dy);
    let (want, want_grads) = case.reference(t, r, ch09::reference::mlp);
    let mine = shard_of(whole, cfg, t, r);
    let xs = x.detach().copy().set_requires_grad(true);
    let mut tape = Tape::new();
    let got = forward(&mut tape, tp, &mine, &xs);
    let dx = tape.backward(&got, dy);
    let got_grads = mine.grads();

    let bound = |reference: &Tensor| block_bound(reference, cfg.ffn);
    let out = close("the MLP's output", tp, &got, &want, bound(&want));
    if let Err(why) = out {
        let extra = &got - &want - (t as f64 - 1.0) * &whole.b2;
        let hint = match t > 1 && max_diff(&extra, &extra.zeros_like()) <= bound(&want) {
            true => format!(
                ": it is off by (t - 1) x b2, the row-parallel bias added on each of the {t} \
                 ranks before g's allreduce (add it once, after)"
            ),
            false => String::new(),
        };
        return Err(format!("{why}{hint}"));
    }
    let pairs = [
        ("mlp1.weight", &got_grads.w1, &want_grads.w1),
        ("mlp1.bias", &got_grads.b1, &want_grads.b1),
        ("mlp2.weight", &got_grads.w2, &want_grads.w2),
        ("mlp2.bias", &got_grads.b2, &want_grads.b2),
    ];
    for (name, got, want) in pairs {
        close(
            &format!("the gradient of {name}"),
            tp,
            got,
            want,
            bound(want),
        )?;
    }
    let dx_want = x.grad();
    close(
        "the MLP input's gradient",
        tp,
        &dx,
        &dx_want,
        bound(&dx_want),
    )
    .map_err(|why| {
        format!(
            "{why}, though the weights' gradients match: f's backward must sum every \
             rank's contribution (x feeds every rank's columns)"
        )
    })
}

/// Checks a vocabulary split of `vocab` ids over `t` ranks: consecutive shards in rank
/// order, covering 0..vocab, the first `vocab % t` ranks `vocab / t + 1` ids, the others
/// `vocab / t`.
pub fn check_vocab(
    vocab: usize,
    t: usize,
    vocab_range: impl Fn(usize, usize, usize) -> Range<usize>,
) -> Result<(), String> {
    let (per, extra) = (vocab / t, vocab % t);
    let mut start = 0;
    for r in 0..t {
        let len = per + usize::from(r < extra);
        let want = start..start + len;
        let got = vocab_range(vocab, t, r);
        if got != want {
            return Err(format!(
                "vocabulary shards, V = {vocab}, t = {t}: rank {r} owns ids {got:?} ({} ids) \
                 but expected {want:?}: the first V % t = {extra} ranks own {} ids, the \
                 others {per}, one after another",
                got.len(),
                per + 1
            ));
        }
        start += len;
    }
    Ok(())
}

/// A small GPT for the grid's checks: `layers` blocks of 12 heads (divided by 1 to 4) of
/// 4 features, 8 characters of context, `batch` sequences a replica.
pub fn gpt_model(vocab: usize, batch: usize, layers: usize) -> ch09::gpt::GptConfig {
    tch::set_num_threads(1); // ranks share 2 cores in the tests
    let block = BlockConfig::new(batch, 8, 48, 12).expect("12 heads divide 48");
    ch09::gpt::GptConfig {
        vocab,
        layers,
        block,
    }
}

/// `Err` naming `what` at `at` when the difference `d` from one process's exceeds `bound`.
pub fn within(what: &str, at: &str, d: f64, bound: f64) -> Result<(), String> {
    match d <= bound {
        true => Ok(()),
        false => Err(format!(
            "{at}: {what} differs from one process's by {d:.3e} (bound {bound:.1e})"
        )),
    }
}
