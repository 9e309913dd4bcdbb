//! Shared by the chapter's checks: reference parts (so each exercise is checked on its
//! own), the one-process run the pipeline is compared with, and the comparison.
#![allow(dead_code)] // each test file uses part of it

use ch07::addition::{micro_batches, Addition, MicroBatches};
use ch07::optim::{Optimizer, Rule};
use ch07::stage_model::{whole, Shape, StageModel};
use ch07::wire::{self, Dtype, SendRequest, Transfer};
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};

/// A small model: 8 blocks of width 12 over 2-digit addition, in f64 (the equivalence
/// checks compare to 1e-10).
pub const SHAPE: Shape = Shape {
    task: Addition { digits: 2 },
    width: 12,
    depth: 8,
    dtype: Dtype::F64,
};
pub const SEED: u64 = 11;
pub const LR: f64 = 0.2;

/// Reference send for the executor's checks (not ex 7.2's): no shape check.
fn ref_send<'a, 'b>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    _shape: &[i64],
    buf: &'a mut Vec<f64>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b>, String> {
    *buf = Vec::<f64>::try_from(t.detach().flatten(0, -1)).map_err(|e| e.to_string())?;
    let buf: &'a Vec<f64> = buf;
    Ok(comm
        .process_at_rank(to as i32)
        .immediate_send_with_tag(scope, &buf[..], tag))
}

/// Reference receive: whatever came, viewed as `shape`.
fn ref_recv(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    let (v, _) = comm
        .process_at_rank(from as i32)
        .receive_vec_with_tag::<f64>(tag);
    Ok(Tensor::from_slice(&v).view(shape).to_device(device))
}

/// The transfer the executor's checks use.
pub fn reference_transfer() -> Transfer {
    Transfer {
        send: ref_send,
        recv: ref_recv,
    }
}

/// The batch of `step`, rows `rows` of it, in `m` micro-batches.
pub fn batch(step: u64, n: usize, rows: std::ops::Range<usize>, m: usize) -> MicroBatches {
    let (x, y) = SHAPE.task.train_batch(SEED, step, n);
    let (x, y) = (
        x.narrow(0, rows.start as i64, rows.len() as i64),
        y.narrow(0, rows.start as i64, rows.len() as i64),
    );
    micro_batches(&x, &y, m, Device::Cpu)
}

/// This stage's part of the model, an even split of the blocks over `p` stages.
pub fn stage(s: usize, p: usize) -> StageModel {
    let blocks = toolkit::split::block_range(SHAPE.depth, p, s);
    StageModel::new(SHAPE, blocks, s == 0, s + 1 == p, SEED, Device::Cpu)
}

/// The whole model trained in one process for `steps` SGD steps on batches of `n`:
/// parameters by name.
pub fn one_process(steps: u64, n: usize) -> Vec<(String, Tensor)> {
    let mut model = whole(SHAPE, SEED, Device::Cpu);
    let mut opt = Optimizer::new(Rule::Sgd { lr: LR }, &model.params);
    for step in 0..steps {
        let (x, y) = SHAPE.task.train_batch(SEED, step, n);
        model.zero_grad();
        StageModel::loss(&model.forward(&x), &y).backward();
        let grads = model.grads();
        opt.step(&mut model.params, &grads);
    }
    model
        .names
        .iter()
        .cloned()
        .zip(model.params.iter().map(Tensor::shallow_clone))
        .collect()
}

/// Ok if every parameter of `stage` equals the one-process parameter of the same name
/// within `1e-10 * (1 + |value|)`: both runs add the same numbers in f64, only in another
/// order (the micro-batches' gradients one after the other), so they differ by rounding,
/// ~1e-16 relative per operation over a few hundred operations and steps.
pub fn same_as_one_process(
    stage: &StageModel,
    reference: &[(String, Tensor)],
    what: &str,
) -> Result<(), String> {
    for (name, p) in stage.names.iter().zip(&stage.params) {
        let (_, r) = reference
            .iter()
            .find(|(n, _)| n == name)
            .ok_or(format!("{what}: no `{name}` in one process"))?;
        let (mut a, mut b) = (Vec::<f64>::new(), Vec::<f64>::new());
        wire::copy_out(p, &mut a);
        wire::copy_out(r, &mut b);
        for (j, (x, y)) in a.iter().zip(&b).enumerate() {
            if (x - y).abs() > 1e-10 * (1.0 + y.abs()) || !x.is_finite() {
                let moved: f64 = b
                    .iter()
                    .zip(&a)
                    .map(|(y, x)| (x - y).abs())
                    .fold(0.0, f64::max);
                return Err(format!(
                    "{what}: parameter `{name}` element {j} is {x:.12} where one process has {y:.12} (largest difference in it {moved:.3e})"
                ));
            }
        }
    }
    Ok(())
}

/// Every value of `tensors`, as bit patterns.
pub fn bits(tensors: &[Tensor]) -> Vec<u64> {
    let mut all = vec![];
    for t in tensors {
        let mut v = Vec::<f64>::new();
        wire::copy_out(t, &mut v);
        all.extend(v.iter().map(|x| x.to_bits()));
    }
    all
}

/// A reference for one stage's step (not ex 7.5's executor): every forward in order,
/// then every backward, blocking sends (a chain with no cycle), loss / m on the last.
pub fn reference_ops(pipe: &SimpleCommunicator, stage: &StageModel, batch: &MicroBatches) -> f64 {
    let (s, p) = (pipe.rank() as usize, pipe.size() as usize);
    let m = batch.len();
    let recv = |from: usize, tag: usize, shape: &[i64]| {
        let (v, _) = pipe
            .process_at_rank(from as i32)
            .receive_vec_with_tag::<f64>(tag as i32);
        Tensor::from_slice(&v).view(shape)
    };
    let send = |to: usize, tag: usize, t: &Tensor| {
        let mut v = Vec::<f64>::new();
        wire::copy_out(t, &mut v);
        pipe.process_at_rank(to as i32)
            .send_with_tag(&v[..], tag as i32);
    };
    let mut kept = vec![];
    let mut loss = 0.0;
    for i in 0..m {
        let x = match s {
            0 => batch.inputs[i].shallow_clone(),
            _ => recv(s - 1, i, &stage.in_shape(batch.rows())).set_requires_grad(true),
        };
        let y = stage.forward(&x);
        let y = match s + 1 == p {
            true => StageModel::loss(&y, &batch.targets[i]) / m as f64,
            false => {
                send(s + 1, i, &y);
                y
            }
        };
        kept.push((x, y));
    }
    for (i, (x, y)) in kept.into_iter().enumerate() {
        if s + 1 == p {
            loss += y.double_value(&[]);
            y.backward();
        } else {
            let g = recv(s + 1, i, &stage.out_shape(batch.rows()));
            (&y * g).sum(tch::Kind::Double).backward();
        }
        if s > 0 {
            send(s - 1, i, &x.grad());
        }
    }
    loss
}
