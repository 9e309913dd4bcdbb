//! Shared test setup for ZeRO-3 (ex 8.3): several steps of the layer executor at N ranks
//! against one process's Adam, taking the unit's backward as an argument, so that the
//! planted mistakes run through the same check.
//!
//! Not a test itself; `mod common; mod zero3_common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch06::model::ModelKind;
use ch06::shuffle::shuffled;
use ch08::halves::Halves;
use ch08::shards::ShardAdam;
use ch08::zero3::{Backward, Comm, Sharded};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// The steps, samples per rank and learning rate of ZeRO-1/2's check, and its grid.
use crate::common::{on_grid, reference_layout, LR, PER_RANK, STEPS};
use ch08::shards::Layout;

/// Each unit's layout as the checks compute it (tests/common's), not by ex 8.1: the
/// checks of ex 8.3 need ex 8.3 alone.
pub fn layout(params: usize, ranks: usize, rank: usize) -> Result<Layout, String> {
    Ok(reference_layout(params, ranks, rank))
}

/// MPI's reduce-scatter and allgather, called here rather than through ex 8.2 (the
/// checks of ex 8.3 need ex 8.3 alone), with each rank's gradient put on the grid of
/// [`on_grid`] before the sum: the reduce-scatter's sums are then exact in any order.
pub struct GridHalves<'w>(pub &'w SimpleCommunicator);

impl Halves for GridHalves<'_> {
    fn sum_scatter(&self, full: &[f32], shard: &mut [f32]) {
        let on: Vec<f32> = full.iter().map(|&g| on_grid(g)).collect();
        self.0
            .reduce_scatter_block_into(&on[..], shard, SystemOperation::sum());
    }
    fn gather_all(&self, shard: &[f32], full: &mut [f32]) {
        self.0.all_gather_into(shard, full);
    }
    fn ranks(&self) -> usize {
        self.0.size() as usize
    }
    fn name(&self) -> &'static str {
        "mpi, gradients on a grid"
    }
}

/// The gradient of the mean loss on `idx` through `model`'s units with every parameter
/// at `values` (per unit, flat), in one autograd graph: per unit, flat, on the grid.
fn reference_gradient(
    model: &Sharded,
    values: &[Vec<f32>],
    train: &ch06::data::Dataset,
    idx: &[usize],
) -> Vec<Vec<f32>> {
    let (x, y) = train.batch(idx);
    let mut params = vec![];
    let mut h = x;
    for (u, v) in model.units.iter().zip(values) {
        let mut offset = 0;
        let p: Vec<Tensor> = u
            .shapes
            .iter()
            .map(|shape| {
                let n: i64 = shape.iter().product();
                let t = Tensor::from_slice(&v[offset as usize..(offset + n) as usize]);
                offset += n;
                t.view(shape.as_slice()).set_requires_grad(true)
            })
            .collect();
        h = u.forward(&h, &p);
        params.push(p);
    }
    let loss = h.cross_entropy_for_logits(&y);
    let all: Vec<&Tensor> = params.iter().flatten().collect();
    let grads = Tensor::run_backward(&[&loss], &all, false, false);
    let mut k = 0;
    values
        .iter()
        .map(|v| {
            let mut flat = vec![0f32; v.len()];
            ch06::flat::pack(&grads[k..k + 2], &mut flat);
            k += 2;
            flat.iter().map(|&g| on_grid(g)).collect()
        })
        .collect()
}

// ANCHOR: equivalence
/// STEPS ZeRO-3 steps of chapter 6's MLP (layers of 8320, 16512 and 1290 parameters,
/// which 3, 5, 7 and 8 do not all divide) on `world.size()` ranks with `backward` for
/// each layer (and `prefetch`), each rank its own PER_RANK digits per step, against one
/// process's Adam on the average of the ranks' gradients, computed in one autograd graph.
///
/// Tolerance: none, bit for bit, as for ZeRO-1/2 (tests/common: `sharded_equivalence`):
/// each rank's layer gradient goes onto the grid of [`on_grid`] on its way into the
/// reduce-scatter ([`GridHalves`]), as the reference's gradients do; the recomputed
/// forward and the layer's VJP are the same CPU operations on the same values as the
/// reference's one graph, so the layer gradients agree before the grid too.
pub fn zero3_equivalence(
    world: &SimpleCommunicator,
    backward: Backward,
    prefetch: bool,
) -> Result<(), String> {
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    tch::set_num_threads(1);
    let train = ch06::data::digits()?.train;
    tch::manual_seed(0);
    let mut model = Sharded::new(ModelKind::Mlp, (8, 8), (n, rank), LR, layout)?;
    tch::manual_seed(0);
    let (_, mut values) = ch08::layers::units(ModelKind::Mlp, (8, 8), 1, 0, layout)?;
    let p: usize = values.iter().map(Vec::len).sum();
    let mut one_adam = ShardAdam::new(LR, p);
    let halves = GridHalves(world);
    let comm = Comm {
        halves: &halves,
        prefetch: prefetch.then_some(world),
    };
    let order = shuffled(train.len(), 3, 0);
    for step in 1..=STEPS {
        let mut sum: Vec<Vec<f32>> = values.iter().map(|v| vec![0f32; v.len()]).collect();
        for r in 0..n {
            let idx = &order[((step - 1) * n + r) * PER_RANK..][..PER_RANK];
            let g = reference_gradient(&model, &values, &train, idx);
            for (s, g) in sum.iter_mut().zip(g) {
                s.iter_mut().zip(g).for_each(|(s, g)| *s += g);
            }
            if r == rank {
                let (x, y) = train.batch(idx);
                model.step_with(&comm, &x, &y, backward);
            }
        }
        let average: Vec<Vec<f32>> = sum
            .iter()
            .map(|s| s.iter().map(|s| s / n as f32).collect())
            .collect();
        for (l, u) in model.units.iter().enumerate() {
            let got = &model.grad_shards[model.ranges[l].clone()];
            for (i, &g) in got.iter().enumerate() {
                let j = u.layout.mine.start + i;
                let want = average[l].get(j).copied().unwrap_or(0.0);
                if g != want {
                    let ratio = g / want;
                    let hint = if (ratio - n as f32).abs() < 1e-3 && n > 1 {
                        format!(": {n} times the average, the sum not divided by the {n} ranks")
                    } else {
                        String::new()
                    };
                    return Err(format!(
                        "step {step} at {n} ranks: rank {rank}'s averaged gradient shard of \
                         layer {}, element {i} (of the layer's {j}), is {g:e} but the average \
                         over the ranks is {want:e} (ratio {ratio:.4}){hint}",
                        u.name
                    ));
                }
            }
        }
        let mut reference: Vec<f32> = values.concat();
        one_adam.step(&mut reference, &average.concat());
        let mut k = 0;
        for v in values.iter_mut() {
            let len = v.len();
            v.copy_from_slice(&reference[k..k + len]);
            k += len;
        }
        let got = model.gathered_values(&comm);
        if let Some(j) = (0..p).find(|&j| got[j] != reference[j]) {
            return Err(format!(
                "step {step} at {n} ranks: parameter {j} is {:e} on rank {rank} after the \
                 ZeRO-3 step but {:e} after one process's Adam",
                got[j], reference[j]
            ));
        }
    }
    Ok(())
}
// ANCHOR_END: equivalence

/// STEPS ZeRO-3 steps of chapter 6's MLP on `world.size()` ranks over `halves` (with
/// `prefetch`), twice from the same start: on the host path, and staged
/// (`Sharded::stage_on(device)`: shards, gradients, Adam and gathered layers on `device`,
/// the collectives through host buffers) with `backward` for each layer. After every step
/// each rank's averaged gradient shards, then its parameter shards, must agree: bit for
/// bit with `tolerance` None (Device::Cpu: the staged path only adds exact copies); on a
/// GPU, whose kernels add in another order, within `tolerance` as a relative distance
/// |staged - host| / |host| over each rank's shards (a norm, not element by element: Adam
/// moves a parameter by about lr whatever its gradient's size, so a near-zero gradient
/// that rounds to the other sign moves that one parameter by up to 2 lr). Both hold the
/// same bytes, and the staging what `staging3_formula` says.
pub fn staged3_equals_host(
    world: &SimpleCommunicator,
    halves: &dyn Halves,
    prefetch: bool,
    device: tch::Device,
    backward: Backward,
    tolerance: Option<f32>,
) -> Result<(), String> {
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    tch::set_num_threads(1);
    let train = ch06::data::digits()?.train;
    let make = || {
        tch::manual_seed(0);
        Sharded::new(ModelKind::Mlp, (8, 8), (n, rank), LR, layout)
    };
    let (mut host, mut staged) = (make()?, make()?);
    staged.stage_on(device, LR);
    let comm = Comm {
        halves,
        prefetch: prefetch.then_some(world),
    };
    let order = shuffled(train.len(), 3, 0);
    let what = format!("staged on {device:?} at {n} ranks, rank {rank}");
    for step in 1..=STEPS {
        let idx = &order[((step - 1) * n + rank) * PER_RANK..][..PER_RANK];
        let (x, y) = train.batch(idx);
        host.step_with(&comm, &x, &y, ch08::layer_step::backward_layer);
        staged.step_with(&comm, &x, &y, backward);
        let on = staged.on_device.as_ref().ok_or("not staged")?;
        let grads = Vec::<f32>::try_from(on.grad_shards.to_device(tch::Device::Cpu)).unwrap();
        let values = (host.shard_values(), staged.shard_values());
        let pairs = [
            ("averaged gradient shard", &host.grad_shards, &grads),
            ("parameter shard", &values.0, &values.1),
        ];
        for (name, want, got) in pairs {
            if let Some(t) = tolerance {
                let rel = relative_distance(want, got);
                if rel > t {
                    return Err(format!(
                        "step {step}, {what}: the {name}s are {rel:e} apart (relative), more \
                         than {t:e}"
                    ));
                }
                continue;
            }
            if let Some(i) = want
                .iter()
                .zip(got.iter())
                .position(|(a, b)| a.to_bits() != b.to_bits())
            {
                let ratio = got[i] / want[i];
                return Err(format!(
                    "step {step}, {what}: element {i} of the {name} is {:e}, the host step's \
                     {:e} (ratio {ratio:.4})",
                    got[i], want[i]
                ));
            }
        }
        if host.held() != staged.held() {
            let (a, b) = (staged.held(), host.held());
            return Err(format!("{what}: holds {a:?}, the host path {b:?}"));
        }
    }
    let padded: Vec<usize> = host.units.iter().map(|u| u.layout.padded).collect();
    let staging = staged.on_device.as_ref().map_or(0, |d| d.staging.bytes());
    let want = ch08::staged3::staging3_formula(&padded, n);
    if staging != want {
        return Err(format!(
            "{what}: {staging} B of host staging, formula {want}"
        ));
    }
    Ok(())
}

/// |b - a| / |a| (Euclidean norms).
fn relative_distance(a: &[f32], b: &[f32]) -> f32 {
    let norm = |x: &mut dyn Iterator<Item = f32>| x.map(|d| d * d).sum::<f32>().sqrt();
    let apart = norm(&mut a.iter().zip(b).map(|(x, y)| x - y));
    apart / norm(&mut a.iter().copied()).max(f32::MIN_POSITIVE)
}
