//! Shared test setup for chapter 8: the layout check (ex 8.1) and the equivalence of the
//! sharded step with one process's Adam (ex 8.2), each taking the code under test as an
//! argument, so that the planted mistakes run through the same checks.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch06::data::Dataset;
use ch06::model::{self, ModelKind};
use ch06::shuffle::shuffled;
use ch08::config::{Collectives, Config};
use ch08::halves::{Halves, MpiHalves};
use ch08::memory::Stage;
use ch08::shards::{FlatParams, Layout, ShardAdam};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use tch::nn::{self, VarStore};
use tch::{Device, Tensor};

// ANCHOR: check_layout
/// Checks a shard layout for `params` elements over `ranks` ranks: every shard S =
/// ceil(P/N) elements long, rank r's at r*S, so that together they cover the padded
/// buffer 0..N*S in rank order, the padding (N*S - P < N zeros) after the last parameter.
pub fn check_layout(
    params: usize,
    ranks: usize,
    shard_len: impl Fn(usize, usize) -> usize,
    shard_range: impl Fn(usize, usize, usize) -> Range<usize>,
) -> Result<(), String> {
    let s = params.div_ceil(ranks);
    let what = format!("P = {params}, N = {ranks}");
    if shard_len(params, ranks) != s {
        return Err(format!(
            "{what}: shard_len {} but expected {s} (P/N rounded up, so that N shards cover \
             all P parameters)",
            shard_len(params, ranks)
        ));
    }
    for r in 0..ranks {
        let got = shard_range(params, ranks, r);
        let want = r * s..(r + 1) * s;
        if got != want {
            return Err(format!(
                "{what}: your shard_range gives rank {r} {got:?} ({} elements) but expected {want:?}: every \
                 shard holds S = {s} elements at r*S, the last ones padding included \
                 (padding {} after element {params})",
                got.len(),
                ranks * s - params
            ));
        }
    }
    Ok(())
}
// ANCHOR_END: check_layout

/// The digits training set (one thread per rank: ranks share 2 cores in the tests).
pub fn digits_train() -> Dataset {
    tch::set_num_threads(1);
    ch06::data::digits().expect("the shipped digits").train
}

/// Chapter 6's MLP for 8x8 images, seeded, and its parameters sorted by name.
pub fn mlp(seed: i64) -> (VarStore, nn::Sequential, Vec<Tensor>) {
    tch::manual_seed(seed);
    let vs = VarStore::new(Device::Cpu);
    let net = model::build(&vs.root(), ModelKind::Mlp, (8, 8));
    let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    (vs, net, named.into_iter().map(|(_, t)| t).collect())
}

/// The layout of `rank`, computed here rather than by ex 8.1, so that the checks of ex
/// 8.2 depend on ex 8.2 alone.
pub fn reference_layout(params: usize, ranks: usize, rank: usize) -> Layout {
    let shard = params.div_ceil(ranks);
    Layout {
        params,
        ranks,
        rank,
        shard,
        padded: shard * ranks,
        mine: rank * shard..(rank + 1) * shard,
    }
}

/// The ZeRO step under test, with ex 8.2's `zero_step` signature.
pub type ZeroStep<'a> =
    &'a mut dyn FnMut(&dyn Halves, &Layout, &[f32], &mut [f32], &mut [f32], &mut ShardAdam);

/// Steps of the equivalence check, samples per rank per step, Adam's learning rate.
pub const STEPS: usize = 4;
pub const PER_RANK: usize = 8;
pub const LR: f64 = 1e-2;

/// A gradient on the grid of multiples of 2^-20 in [-1, 1]: any sum of up to 8 such
/// values is exact in f32 (at most 2^23 steps of 2^-20: 24 bits), in any order.
pub fn on_grid(g: f32) -> f32 {
    let scale = (1u32 << 20) as f32;
    (g.clamp(-1.0, 1.0) * scale).round() / scale
}

/// The gradient of the mean loss of `net` on `idx`, flat (P values, then zeros up to
/// `padded`), each value on the grid of [`on_grid`].
fn gradient(
    net: &nn::Sequential,
    params: &[Tensor],
    train: &Dataset,
    idx: &[usize],
    padded: usize,
) -> Vec<f32> {
    let (x, y) = train.batch(idx);
    let loss = model::loss(net, &x, &y);
    let grads = Tensor::run_backward(&[&loss], params, false, false);
    let mut flat = vec![0f32; padded];
    let p = ch06::flat::total_len(&grads);
    ch06::flat::pack(&grads, &mut flat[..p]);
    flat.iter_mut().for_each(|g| *g = on_grid(*g));
    flat
}

// ANCHOR: equivalence
/// STEPS sharded steps (`zero`, over MPI's halves) of chapter 6's MLP (P = 26122, which
/// 3, 5, 7 and 8 do not divide) on `world.size()` ranks, each rank its own PER_RANK
/// digits per step, against one process's Adam on the average of the ranks' gradients.
///
/// Tolerance: none, bit for bit (as numbers: -0 equals +0, since MPI may add a -0 where
/// a sum starting from +0 gives +0). Each rank's gradient is first put on the grid of
/// [`on_grid`], where every sum of the N <= 8 gradients is exact whatever order MPI's
/// reduce-scatter adds them in; the average is then the same f32 division in both, and
/// Adam's update is element-wise (the same f32 operations on each element, whether the
/// tensor is a shard of S elements or all P), so any difference is a mistake, not
/// rounding. (Without the grid, the sums' order would differ by a few ulps, and Adam's
/// m/sqrt(v) turns an ulp of a nearly cancelled gradient into up to 2 lr: no small
/// relative bound would hold.)
pub fn sharded_equivalence(world: &SimpleCommunicator, zero: ZeroStep) -> Result<(), String> {
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    let train = digits_train();
    let (_vs, net, params) = mlp(0); // the same seed on every rank: the same start
    let p = ch06::flat::total_len(&params);
    let layout = reference_layout(p, n, rank);
    let mut flat = FlatParams::new(params, layout.padded);
    let mut reference: Vec<f32> = flat.values()[..p].to_vec();
    let (mut adam, mut one_adam) = (ShardAdam::new(LR, layout.shard), ShardAdam::new(LR, p));
    let mut shard = vec![0f32; layout.shard];
    let halves = MpiHalves { world };
    let order = shuffled(train.len(), 3, 0);
    for step in 1..=STEPS {
        // Every rank's gradient (each rank computes all N: the reference needs them).
        let (mut sum, mut mine) = (vec![0f32; layout.padded], vec![]);
        for r in 0..n {
            let idx = &order[((step - 1) * n + r) * PER_RANK..][..PER_RANK];
            let g = gradient(&net, &flat.params, &train, idx, layout.padded);
            sum.iter_mut().zip(&g).for_each(|(s, x)| *s += x);
            if r == rank {
                mine = g;
            }
        }
        let average: Vec<f32> = sum.iter().map(|s| s / n as f32).collect();
        zero(
            &halves,
            &layout,
            &mine,
            &mut shard,
            flat.values_mut(),
            &mut adam,
        );
        for (i, (&got, &want)) in shard.iter().zip(&average[layout.mine.clone()]).enumerate() {
            if got != want {
                let j = layout.mine.start + i;
                let ratio = got / want;
                let hint = if (ratio - n as f32).abs() < 1e-3 && n > 1 {
                    format!(": {n} times the average, the sum not divided by the {n} ranks")
                } else {
                    String::new()
                };
                return Err(format!(
                    "step {step} at {n} ranks: rank {rank}'s averaged gradient shard, element \
                     {i} (flat {j}), is {got:e} but the average over the ranks is {want:e} \
                     (ratio {ratio:.4}){hint}"
                ));
            }
        }
        one_adam.step(&mut reference, &average[..p]);
        let values = flat.values();
        for (j, (&got, &want)) in values.iter().zip(&reference).enumerate() {
            if got != want {
                let owner = j / layout.shard;
                return Err(format!(
                    "step {step} at {n} ranks: parameter {j} (rank {owner}'s shard) is {got:e} \
                     on rank {rank} but {want:e} after one process's Adam"
                ));
            }
        }
        if let Some(j) = values[p..].iter().position(|&x| x != 0.0) {
            return Err(format!(
                "step {step}: padding element {} is {}, not 0",
                p + j,
                values[p + j]
            ));
        }
    }
    Ok(())
}
// ANCHOR_END: equivalence

// ANCHOR: check_reshard
/// Checks a reshard's copies (`sources`, ex 8.4) for every N and M from 1 to 8 and P in
/// `params`: each copy reads inside saved rank `from`'s slice (its real elements only)
/// and writes inside the new shard, and together they put flat element i at the new
/// shard's place of i, for every real element, leaving only the padding untouched.
pub fn check_reshard(
    params: &[usize],
    sources: impl Fn(usize, usize, &Layout) -> Vec<ch08::shards::SliceCopy>,
) -> Result<(), String> {
    for &p in params {
        for n in 1..=8.min(p) {
            let s = p.div_ceil(n);
            let saved: Vec<Range<usize>> = (0..n)
                .map(|q| (q * s).min(p)..((q + 1) * s).min(p))
                .collect();
            for m in 1..=8.min(p) {
                for r in 0..m {
                    let new = reference_layout(p, m, r);
                    let what = format!("reshard of P = {p} saved at N = {n} (S = {s}), rank {r} of M = {m} (S' = {}, owns {:?})", new.shard, new.mine);
                    let mut shard = vec![None; new.shard];
                    for c in sources(p, n, &new) {
                        let have = saved.get(c.from).ok_or(format!(
                            "{what}: a copy from saved rank {}, but only {n} saved",
                            c.from
                        ))?;
                        if c.src.end > have.len()
                            || c.dst.end > new.shard
                            || c.src.len() != c.dst.len()
                        {
                            return Err(format!(
                                "{what}: copy {:?} of saved rank {}'s slice to {:?} of the shard, but that slice holds {} real elements ({have:?}; the padding is not saved) and the shard {}",
                                c.src, c.from, c.dst, have.len(), new.shard));
                        }
                        for (i, j) in c.src.clone().zip(c.dst.clone()) {
                            shard[j] = Some(have.start + i);
                        }
                    }
                    for (j, got) in shard.iter().enumerate() {
                        let flat = new.mine.start + j;
                        let want = (flat < p).then_some(flat);
                        if *got != want {
                            return Err(format!("{what}: shard element {j} (flat {flat}) gets {got:?}, expected {want:?} (None: padding, a zero)"));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
// ANCHOR_END: check_reshard

/// The `zero` lab's settings its tests train with: chapter 6's MLP, a global batch of 24,
/// `steps` steps in all, quiet.
pub fn lab_cfg(stage: Stage, collectives: Collectives, steps: u64) -> Config {
    let mut c = Config {
        stage,
        collectives,
        model: ModelKind::Mlp,
        max_steps: Some(steps),
        ..Config::default()
    };
    (c.common.quiet, c.common.batch) = (true, 24);
    c
}
