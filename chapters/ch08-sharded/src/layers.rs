//! Given: chapter 6's models cut into FSDP units, one unit per layer (a linear or a
//! convolution with its weight and bias, and the activations around it), each with its own
//! padded flat buffer split over the N ranks; and the gathered copy of a unit's parameters,
//! counted by a [`Meter`] while it lives.
//!
//! ZeRO-3 never holds the whole model: a rank keeps S_l elements of each unit l (its shard
//! of the unit's P_l parameters padded to N * S_l) and gathers one unit at a time. The units
//! compute exactly what `ch06::model::build` computes (the same ATen operations on the same
//! values, in the same order), as functions of their parameters, so that a unit can run on
//! a gathered copy and be run again (recomputed) in the backward pass.

use crate::shards::Layout;
use ch06::model::ModelKind;
use std::cell::Cell;
use tch::{Device, Kind, Tensor};

/// What a unit applies around its linear or convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// (N, C, H, W) or (N, H, W) to (N, features).
    Flatten,
    /// max(x, 0).
    Relu,
    /// A 2x2 max-pool.
    Pool,
}

/// The operation that owns a unit's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `x.linear(weight, bias)`, as `nn::Linear`.
    Linear,
    /// A 3x3 convolution, stride 1, padding 1, as chapter 6's `nn::conv2d`.
    Conv,
}

/// One FSDP unit: a layer of chapter 6's model and this rank's place in its flat buffer.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The layer's name in the model (`fc1`, `conv2`, ...).
    pub name: String,
    /// Applied to the unit's input, in order, before `op`.
    pub before: Vec<Act>,
    pub op: Op,
    /// Applied to `op`'s output, in order.
    pub after: Vec<Act>,
    /// The parameter tensors' shapes, in flat order (bias, then weight: sorted by name).
    pub shapes: Vec<Vec<i64>>,
    /// This rank's shard of the unit's padded flat buffer (P_l parameters over N ranks).
    pub layout: Layout,
}

fn apply(x: Tensor, acts: &[Act]) -> Tensor {
    acts.iter().fold(x, |x, act| match act {
        Act::Flatten => x.flatten(1, -1),
        Act::Relu => x.relu(),
        Act::Pool => x.max_pool2d_default(2),
    })
}

impl Unit {
    /// The unit's output for `x`, computed with `params` (bias, weight) as chapter 6's
    /// model computes it.
    pub fn forward(&self, x: &Tensor, params: &[Tensor]) -> Tensor {
        let (bias, weight) = (&params[0], &params[1]);
        let x = apply(x.shallow_clone(), &self.before);
        let y = match self.op {
            Op::Linear => x.linear(weight, Some(bias)),
            Op::Conv => x.conv2d(weight, Some(bias), [1, 1], [1, 1], [1, 1], 1),
        };
        apply(y, &self.after)
    }

    /// P_l: the unit's parameters (elements).
    pub fn params(&self) -> usize {
        self.layout.params
    }
}

/// The layers of `kind`'s model, in forward order: name, activations before, operation,
/// activations after (what `ch06::model::build` applies around each layer).
type Spec = (String, Vec<Act>, Op, Vec<Act>);

fn spec(kind: ModelKind) -> Vec<Spec> {
    match kind {
        ModelKind::Mlp => vec![
            (
                "fc1".into(),
                vec![Act::Flatten],
                Op::Linear,
                vec![Act::Relu],
            ),
            ("fc2".into(), vec![], Op::Linear, vec![Act::Relu]),
            ("out".into(), vec![], Op::Linear, vec![]),
        ],
        ModelKind::Cnn | ModelKind::WideCnn(_) => vec![
            ("conv1".into(), vec![], Op::Conv, vec![Act::Relu]),
            (
                "conv2".into(),
                vec![],
                Op::Conv,
                vec![Act::Relu, Act::Pool, Act::Flatten],
            ),
            ("fc1".into(), vec![], Op::Linear, vec![Act::Relu]),
            ("out".into(), vec![], Op::Linear, vec![]),
        ],
        ModelKind::DeepMlp(n) => {
            let hidden =
                (0..n).map(|i| (format!("hidden{i:03}"), vec![Act::Relu], Op::Linear, vec![]));
            let first = ("in".into(), vec![Act::Flatten], Op::Linear, vec![]);
            std::iter::once(first)
                .chain(hidden)
                .chain([("out".into(), vec![], Op::Linear, vec![])])
                .collect()
        }
    }
}

/// Each layer's parameters of `kind`'s model (bias, then weight), flat, as
/// `ch06::model::build` makes them with the current seed: (spec, values, shapes).
fn layer_values(kind: ModelKind, image: (i64, i64)) -> Vec<(Spec, Vec<f32>, Vec<Vec<i64>>)> {
    let vs = tch::nn::VarStore::new(Device::Cpu);
    let _ = ch06::model::build(&vs.root(), kind, image);
    let vars = vs.variables();
    spec(kind)
        .into_iter()
        .map(|s| {
            let tensors = ["bias", "weight"].map(|p| vars[&format!("{}.{p}", s.0)].shallow_clone());
            let mut values = vec![0f32; tensors.iter().map(Tensor::numel).sum()];
            ch06::flat::pack(&tensors, &mut values);
            let shapes = tensors.iter().map(Tensor::size).collect();
            (s, values, shapes)
        })
        .collect()
}

/// P_l of each layer of `kind`'s model for (H, W) images, in forward order.
pub fn layer_params(kind: ModelKind, image: (i64, i64)) -> Vec<usize> {
    layer_values(kind, image)
        .iter()
        .map(|l| l.1.len())
        .collect()
}

/// Each layer's name and P_l of `kind`'s model for (H, W) images, in forward order: the
/// units a stage-3 checkpoint lists.
pub fn layer_sizes(kind: ModelKind, image: (i64, i64)) -> Vec<(String, usize)> {
    let layers = layer_values(kind, image).into_iter();
    layers.map(|l| (l.0 .0, l.1.len())).collect()
}

/// How a unit's layout is made from (P_l, N, rank): `Layout::new` (ex 8.1's) in the
/// trainer; the checks of ex 8.3 pass one of their own, so that they need ex 8.3 alone.
pub type LayoutFn = fn(usize, usize, usize) -> Result<Layout, String>;

/// The units of `kind`'s model for (H, W) images, with each unit's parameters flat (bias,
/// then weight), from `ch06::model::build` with the current seed: the sharded model starts
/// where chapter 6's does. Each unit's layout is `rank`'s among `ranks`, by `layout`.
pub fn units(
    kind: ModelKind,
    image: (i64, i64),
    ranks: usize,
    rank: usize,
    layout: LayoutFn,
) -> Result<(Vec<Unit>, Vec<Vec<f32>>), String> {
    let mut out = (vec![], vec![]);
    for ((name, before, op, after), values, shapes) in layer_values(kind, image) {
        let layout = layout(values.len(), ranks, rank)?;
        out.0.push(Unit {
            name,
            before,
            op,
            after,
            shapes,
            layout,
        });
        out.1.push(values);
    }
    Ok(out)
}

/// What flows into a layer's backward from above.
pub enum Upstream<'a> {
    /// The last layer: its output is the logits, and these are the labels of the mean
    /// cross-entropy loss (`logits.cross_entropy_for_logits(labels)`).
    Loss(&'a Tensor),
    /// Any other layer: the gradient of the loss with respect to its output.
    Grad(&'a Tensor),
}

/// The bytes a rank holds for a while inside a step (gathered parameters, a unit's whole
/// gradient before its reduce-scatter): now, and the most at any moment since the last
/// [`Meter::reset`]. The trainer's own accounting, as the buffers are made and dropped.
#[derive(Debug, Default)]
pub struct Meter {
    now: Cell<usize>,
    peak: Cell<usize>,
}

impl Meter {
    /// Counts `bytes` more held.
    pub fn add(&self, bytes: usize) {
        self.now.set(self.now.get() + bytes);
        self.peak.set(self.peak.get().max(self.now.get()));
    }
    /// Counts `bytes` freed.
    pub fn sub(&self, bytes: usize) {
        self.now.set(self.now.get() - bytes);
    }
    /// Bytes held now.
    pub fn now(&self) -> usize {
        self.now.get()
    }
    /// The most held at once since the last reset.
    pub fn peak(&self) -> usize {
        self.peak.get()
    }
    /// Starts a new peak from what is held now.
    pub fn reset(&self) {
        self.peak.set(self.now.get());
    }
}

/// A counted f32 buffer: its bytes are on the [`Meter`] from its making to its drop.
pub struct Counted<'m> {
    /// The buffer as one CPU f32 tensor.
    pub flat: Tensor,
    meter: &'m Meter,
}

impl<'m> Counted<'m> {
    /// `len` zeros on the CPU, counted on `meter`.
    pub fn zeros(len: usize, meter: &'m Meter) -> Counted<'m> {
        Counted::zeros_on(len, meter, Device::Cpu)
    }

    /// `len` zeros on `device`, counted on `meter` (the staged executor's gathered units).
    pub fn zeros_on(len: usize, meter: &'m Meter, device: Device) -> Counted<'m> {
        meter.add(4 * len);
        let flat = Tensor::zeros([len as i64], (Kind::Float, device));
        Counted { flat, meter }
    }

    /// The buffer as a slice (a CPU buffer only: a panic otherwise).
    pub fn values(&self) -> &[f32] {
        assert_eq!(
            self.flat.device(),
            Device::Cpu,
            "Counted::values: not on the CPU"
        );
        // SAFETY: `flat` is a contiguous CPU f32 tensor that `self` owns; the slice
        // borrows `self`, so the buffer outlives it.
        unsafe { std::slice::from_raw_parts(self.flat.data_ptr() as *const f32, self.flat.numel()) }
    }

    /// The buffer as a mutable slice (for MPI to write into; a CPU buffer only).
    pub fn values_mut(&mut self) -> &mut [f32] {
        assert_eq!(
            self.flat.device(),
            Device::Cpu,
            "Counted::values_mut: not on the CPU"
        );
        // SAFETY: as in `values`; `&mut self` keeps other Rust accesses out.
        unsafe {
            std::slice::from_raw_parts_mut(self.flat.data_ptr() as *mut f32, self.flat.numel())
        }
    }

    /// The unit's parameter tensors as views into this buffer (bias, weight), leaves that
    /// require a gradient: what a recomputed forward differentiates against.
    pub fn params(&self, unit: &Unit) -> Vec<Tensor> {
        let mut offset = 0;
        unit.shapes
            .iter()
            .map(|shape| {
                let n: i64 = shape.iter().product();
                let view = self.flat.narrow(0, offset, n).view(shape.as_slice());
                offset += n;
                view.detach().set_requires_grad(true)
            })
            .collect()
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.meter.sub(4 * self.flat.numel());
    }
}
