//! Shared test setup for chapter 6: reference code that the checks use INSTEAD of the
//! other exercises, so that each exercise's tests depend on that exercise alone.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch06::data::{self, Dataset};
use ch06::model::{self, ModelKind};
use ch06::optim::{zero_grads, Optimizer, Rule};
use ch06::reducer::{Allreduce, MpiAllreduce};
use ch06::shuffle::{shuffled, Remainder};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::nn::{self, VarStore};
use tch::{Device, Tensor};

/// A tensor's values through tch's own (slow, allocating) conversion: the reference the
/// bridge is compared with.
pub fn values<T: tch::kind::Element + Copy>(t: &Tensor) -> Vec<T> {
    Vec::<T>::try_from(&t.detach().contiguous().view(-1)).expect("tch conversion")
}

/// Reference broadcast for test setup: MPI_Bcast of each tensor, through tch's own
/// conversions (not the learner's bridge or broadcast).
pub fn reference_broadcast(world: &SimpleCommunicator, params: &mut [Tensor]) {
    for p in params.iter_mut() {
        let mut buf: Vec<f32> = values(p);
        world.process_at_rank(0).broadcast_into(&mut buf[..]);
        let t = Tensor::from_slice(&buf).view(p.size().as_slice());
        tch::no_grad(|| p.copy_(&t));
    }
}

/// A model and its parameters sorted by name (the trainer's order).
pub struct Net {
    pub vs: VarStore,
    pub model: nn::Sequential,
    pub params: Vec<Tensor>,
}

/// Builds `kind` for 8x8 images with LibTorch's RNG seeded by `seed`.
pub fn net(kind: ModelKind, seed: i64) -> Net {
    tch::manual_seed(seed);
    let vs = VarStore::new(Device::Cpu);
    let model = model::build(&vs.root(), kind, (8, 8));
    let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let params = named.into_iter().map(|(_, t)| t).collect();
    Net { vs, model, params }
}

/// The digits training set (one thread per rank: ranks share 2 cores in the tests).
pub fn digits_train() -> Dataset {
    tch::set_num_threads(1);
    data::digits().expect("the shipped digits").train
}

/// A gradient sync under test: (reducer, gradients) -> gradients averaged over ranks.
pub type Sync<'a> = &'a mut dyn FnMut(&dyn Allreduce, &mut [Tensor]);

/// Global batch and steps of the equivalence checks: B divisible by 1, 2, 3 and 4.
pub const GLOBAL_BATCH: usize = 24;
pub const STEPS: usize = 4;

// ANCHOR: tolerance
/// Relative tolerance of the equivalence checks, on parameters and gradient norms.
///
/// Why not exact: one process sums B per-sample gradients in one order; p ranks sum B/p
/// each, then MPI sums the p partial means: the same terms, added in another order. In f32
/// each sum of n terms is off by at most gamma(n-1)*sum|g|, about (n-1)*u*sum|g| (u = 6e-8); with B = 24
/// terms, relative gradient errors stay near 1e-6 when the terms do not cancel, and the
/// few steps here add such errors up. Measured here: up to 4e-6 relative (to
/// max(|x|, 0.01)) after 4-5 steps at 2-4 ranks, so 1e-4 leaves a 25x margin, while a real
/// mistake (gradients summed instead of averaged, a wrong batch) is off by 10% or more.
pub const RTOL: f64 = 1e-4;
// ANCHOR_END: tolerance

/// `got` within RTOL of `want`, relative to the larger magnitude (absolute below 1e-6).
pub fn close(what: &str, got: f64, want: f64) -> Result<(), String> {
    let scale = got.abs().max(want.abs()).max(1e-2);
    if (got - want).abs() <= RTOL * scale {
        Ok(())
    } else {
        let ratio = got / want;
        // A whole ratio of 2 or more: the gradients of the ranks summed, not averaged.
        let why = match ratio.round() {
            n if n >= 2.0 && (ratio - n).abs() < 1e-3 => format!(
                ": {n} times one process's, the sum over the ranks not divided by their \
                 number (the average is the sum / p)"
            ),
            _ => String::new(),
        };
        Err(format!(
            "{what}: {got:.9} with data parallelism but {want:.9} in one process \
             (ratio {ratio:.4}, tolerance {RTOL} relative){why}"
        ))
    }
}

/// Global gradient norm sqrt(sum g^2) of `params`.
pub fn grad_norm(params: &[Tensor]) -> f64 {
    let sq: f64 = params
        .iter()
        .map(|p| p.grad().square().sum(tch::Kind::Double).double_value(&[]))
        .sum();
    sq.sqrt()
}

// ANCHOR: equivalence
/// Trains `kind` for STEPS steps on `world.size()` ranks, each with its strided share
/// (B/p samples) of every global batch and `sync` averaging the gradients, and, on every
/// rank, the same model in one process with the whole batch B. Gradient norms must agree
/// after every step and every parameter at the end, within RTOL.
pub fn equivalence(world: &SimpleCommunicator, kind: ModelKind, sync: Sync) -> Result<(), String> {
    let (rank, ranks) = (world.rank() as usize, world.size() as usize);
    let train = digits_train();
    let mut dp = net(kind, 100 + rank as i64); // differs per rank until the broadcast
    reference_broadcast(world, &mut dp.params);
    let mut one = net(kind, 0);
    for (o, d) in one.params.iter_mut().zip(&dp.params) {
        tch::no_grad(|| o.copy_(d));
    }
    let reducer = MpiAllreduce::new(world);
    let rule = Rule::Momentum {
        lr: 0.1,
        momentum: 0.9,
    };
    let (mut opt_dp, mut opt_one) = (
        Optimizer::new(rule, &dp.params),
        Optimizer::new(rule, &one.params),
    );
    let order = shuffled(train.len(), 7, 0);
    for step in 0..STEPS {
        let global = &order[step * GLOBAL_BATCH..(step + 1) * GLOBAL_BATCH];
        let mine: Vec<usize> = global.iter().copied().skip(rank).step_by(ranks).collect();
        // data parallel: my part of the batch, then the sync under test
        let (x, y) = train.batch(&mine);
        zero_grads(&mut dp.params);
        model::loss(&dp.model, &x, &y).backward();
        let mut grads: Vec<Tensor> = dp.params.iter().map(Tensor::grad).collect();
        sync(&reducer, &mut grads);
        // one process: the whole batch
        let (x, y) = train.batch(global);
        zero_grads(&mut one.params);
        model::loss(&one.model, &x, &y).backward();
        let what = format!(
            "{kind:?}: gradient norm after step {} at {ranks} ranks",
            step + 1
        );
        close(&what, grad_norm(&dp.params), grad_norm(&one.params))?;
        opt_dp.step_on_grads(&mut dp.params);
        opt_one.step_on_grads(&mut one.params);
    }
    for (i, (d, o)) in dp.params.iter().zip(&one.params).enumerate() {
        let (d, o): (Vec<f32>, Vec<f32>) = (values(d), values(o));
        for (j, (a, b)) in d.iter().zip(&o).enumerate() {
            let what = format!("{kind:?}: parameter tensor {i}, element {j}, after {STEPS} steps");
            close(&what, f64::from(*a), f64::from(*b))?;
        }
    }
    Ok(())
}
// ANCHOR_END: equivalence

// ANCHOR: partition
/// Every rank the same count; with Drop every sample at most once (the last `len % p` of
/// the order left out); with Pad every sample at least once, the extra ones repeats of the
/// start of the order; and the strided layout: step k's batches of all ranks together
/// are positions k*b*p..(k+1)*b*p of the order.
pub fn check_partition(
    order: &[usize],
    p: usize,
    remainder: Remainder,
    rank_indices: impl Fn(&[usize], usize, usize, Remainder) -> Vec<usize>,
) -> Result<(), String> {
    let len = order.len();
    let parts: Vec<Vec<usize>> = (0..p)
        .map(|r| rank_indices(order, p, r, remainder))
        .collect();
    let want_n = match remainder {
        Remainder::Pad => len.div_ceil(p),
        Remainder::Drop => len / p,
    };
    let n = want_n;
    let mut takers = vec![vec![]; len];
    for (r, part) in parts.iter().enumerate() {
        if part.len() != n {
            return Err(format!(
                "rank {r} got {} samples, expected {n} ({remainder:?}, len {len}, {p} ranks)",
                part.len()
            ));
        }
        for (j, &i) in part.iter().enumerate() {
            takers[i].push(r);
            let pos = j * p + r; // strided: rank r's j-th sample is position j*p + r
            if i != order[pos % len] {
                return Err(format!(
                    "rank {r}'s sample {j} is {i}, expected order[{pos}] = {} (strided)",
                    order[pos % len]
                ));
            }
        }
    }
    // Position q of the padded (or cut) order is order[q % len]: count who should take what.
    let mut want = vec![0; len];
    (0..n * p).for_each(|q| want[order[q % len]] += 1);
    for (i, t) in takers.iter().enumerate() {
        if t.len() != want[i] {
            return Err(format!(
                "sample {i} is taken by ranks {t:?}, expected {} times ({remainder:?}, len {len}, {p} ranks)",
                want[i]
            ));
        }
    }
    Ok(())
}
// ANCHOR_END: partition
