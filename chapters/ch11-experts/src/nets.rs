//! Given: the experts as LibTorch parameters, for part 2, which trains them. Expert `e` is
//! the linear map `y = x·Wᵀ + b` of [`crate::experts::Experts`], its `W` and `b` copied
//! into f32 tensors on the layer's device that require grad; a rank holds only its own
//! block of experts (`Layout::local`), one process holds them all. The exchanges work on
//! host floats: [`values`] copies a tensor to the host, [`tensor_on`] puts floats back on
//! a device.

use crate::experts::Experts;
use std::ops::Range;
use tch::{Device, Kind, Tensor};

/// The experts `first..first + len` as tensors that require grad.
pub struct ExpertNets {
    /// Floats per row.
    pub hidden: usize,
    /// The global id of the first expert held.
    pub first: usize,
    /// Per expert held, `W` (`hidden × hidden`).
    pub weights: Vec<Tensor>,
    /// Per expert held, `b` (`hidden`).
    pub biases: Vec<Tensor>,
}

/// An f32 CPU tensor of `values` shaped `shape`.
pub fn tensor(values: &[f32], shape: &[i64]) -> Tensor {
    Tensor::from_slice(values).view(shape)
}

/// An f32 tensor of `values` shaped `shape` on `device` (a copy from the host when the
/// device is a GPU): what comes out of an exchange goes back where its tensor lives.
pub fn tensor_on(values: &[f32], shape: &[i64], device: Device) -> Tensor {
    tensor(values, shape).to_device(device)
}

/// The indices `idx` as an i64 tensor on `device`, for `index_select` and `index_add`
/// (whose index must be on the tensor's device).
pub fn indices(idx: &[i64], device: Device) -> Tensor {
    Tensor::from_slice(idx).to_device(device)
}

/// The values of `t` (any shape) as a row-major `Vec<f32>`.
pub fn values(t: &Tensor) -> Vec<f32> {
    let flat = t.detach().to_kind(Kind::Float).contiguous().view([-1]);
    Vec::<f32>::try_from(&flat).expect("an f32 tensor")
}

/// `t`'s gradient, or zeros of its shape when nothing reached it (a rank that received no
/// rows, an expert no token chose).
pub fn grad_or_zeros(t: &Tensor) -> Tensor {
    let g = t.grad();
    match g.defined() {
        true => g,
        false => t.zeros_like(),
    }
}

impl ExpertNets {
    /// The experts `held` of `experts` on `device`, each parameter a fresh leaf that
    /// requires grad.
    pub fn new(experts: &Experts, held: Range<usize>, device: Device) -> Self {
        let h = experts.hidden as i64;
        let leaf = |v: &[f32], shape: &[i64]| tensor_on(v, shape, device).set_requires_grad(true);
        let (weights, biases) = held
            .clone()
            .map(|e| {
                let (w, b) = experts.params(e);
                (leaf(w, &[h, h]), leaf(b, &[h]))
            })
            .unzip();
        ExpertNets {
            hidden: experts.hidden,
            first: held.start,
            weights,
            biases,
        }
    }

    /// Every parameter, expert by expert: `W`, then `b`.
    pub fn parameters(&self) -> Vec<Tensor> {
        self.weights
            .iter()
            .zip(&self.biases)
            .flat_map(|(w, b)| [w.shallow_clone(), b.shallow_clone()])
            .collect()
    }

    /// The held experts applied to `rows` (`n × hidden`): row `i` through the local expert
    /// `local[i]` (`0..len`), the outputs in the order of the rows, in autograd's graph
    /// (each expert's rows gathered with `index_select`, its outputs put back in place
    /// with `index_add`).
    pub fn forward(&self, rows: &Tensor, local: &[usize]) -> Tensor {
        let mut out = rows.zeros_like();
        for (l, (w, b)) in self.weights.iter().zip(&self.biases).enumerate() {
            let idx: Vec<i64> = (0..local.len())
                .filter(|&i| local[i] == l)
                .map(|i| i as i64)
                .collect();
            if idx.is_empty() {
                continue;
            }
            let idx = indices(&idx, rows.device());
            let y = rows.index_select(0, &idx).matmul(&w.tr()) + b;
            out = out.index_add(0, &idx, &y);
        }
        out
    }

    /// Zeroes every parameter's gradient (before the next backward).
    pub fn zero_grad(&self) {
        for p in self.parameters() {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }
}
