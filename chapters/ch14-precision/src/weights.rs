//! Given: a model's two copies in mixed-precision training. The *master* weights are f32
//! and only the optimizer writes them; the *working* weights are their rounding to the
//! compute format (bf16 or f16), which the forward and backward passes use, so that every
//! product runs in the low format and every gradient comes out in it. After each step the
//! master is rounded into the working copy again ([`Weights::refresh`]): an update too
//! small for bf16 still adds up in the f32 master, step after step. The loss is taken in
//! f32 (the logits cast up first), as `torch.autocast` does for a cross-entropy. Both
//! copies live on one device (the CPU, or a rank's GPU with `mixed --device cuda`).
//! Nothing to run here: ex 14.4, the `mixed` lab and the tests use it.

use ch06::model::{build, ModelKind};
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

/// The format of the forward and backward passes (`--precision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compute {
    F32,
    Bf16,
    F16,
}

impl Compute {
    /// "f32", "bf16" or "f16".
    pub fn name(self) -> &'static str {
        match self {
            Compute::F32 => "f32",
            Compute::Bf16 => "bf16",
            Compute::F16 => "f16",
        }
    }

    /// LibTorch's kind for it.
    pub fn kind(self) -> Kind {
        match self {
            Compute::F32 => Kind::Float,
            Compute::Bf16 => Kind::BFloat16,
            Compute::F16 => Kind::Half,
        }
    }
}

/// The format the gradients are summed over the ranks in (`--reduce-dtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// f32 values, MPI_Allreduce's sum.
    F32,
    /// bf16 codes on the wire, summed in f32 and rounded once (ex 14.2).
    Bf16,
}

impl Wire {
    /// "f32" or "bf16".
    pub fn name(self) -> &'static str {
        match self {
            Wire::F32 => "f32",
            Wire::Bf16 => "bf16",
        }
    }

    /// Bytes of one value on the wire.
    pub fn bytes(self) -> usize {
        match self {
            Wire::F32 => 4,
            Wire::Bf16 => 2,
        }
    }
}

/// The master weights (f32, in order of name), the working copy in the compute format,
/// and the model that runs on the working copy.
pub struct Weights {
    /// The f32 master weights, the optimizer's (no gradient of their own).
    pub master: Vec<Tensor>,
    /// The working weights, in `compute`'s format: the model's variables.
    pub working: Vec<Tensor>,
    /// The compute format.
    pub compute: Compute,
    model: nn::Sequential,
    _vs: nn::VarStore,
}

/// A store's variables sorted by name (the same order on every rank).
fn sorted(vs: &nn::VarStore) -> Vec<Tensor> {
    let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named.into_iter().map(|(_, t)| t).collect()
}

impl Weights {
    /// `kind` for (H, W) images, its f32 weights drawn from `seed` on the CPU (the same
    /// on every rank: no broadcast needed), both copies on `device`, the working copy
    /// rounded from the master.
    pub fn new(
        kind: ModelKind,
        image: (i64, i64),
        seed: u64,
        compute: Compute,
        device: Device,
    ) -> Weights {
        tch::manual_seed(seed as i64);
        let mut vs = nn::VarStore::new(Device::Cpu);
        let model = build(&vs.root(), kind, image);
        vs.set_device(device);
        let master = sorted(&vs).iter().map(|t| t.detach().copy()).collect();
        vs.set_kind(compute.kind());
        let working = sorted(&vs);
        let mut w = Weights {
            master,
            working,
            compute,
            model,
            _vs: vs,
        };
        w.refresh();
        w
    }

    /// Rounds the master weights into the working copy (round to nearest, ties to even).
    pub fn refresh(&mut self) {
        tch::no_grad(|| {
            for (w, m) in self.working.iter_mut().zip(&self.master) {
                w.copy_(m);
            }
        });
    }

    /// Forward and backward on a batch in the compute format, the loss (a mean over the
    /// batch, in f32) multiplied by `scale` before the backward pass. Leaves the working
    /// weights' gradients in the compute format; returns the unscaled loss.
    pub fn forward_backward(&mut self, images: &Tensor, labels: &Tensor, scale: f32) -> f64 {
        for w in self.working.iter_mut() {
            w.zero_grad();
        }
        let device = self.device();
        let logits = self
            .model
            .forward(&images.to_device(device).to_kind(self.compute.kind()));
        let loss = logits
            .to_kind(Kind::Float)
            .cross_entropy_for_logits(&labels.to_device(device));
        (&loss * f64::from(scale)).backward();
        loss.double_value(&[])
    }

    /// The working weights' gradients, one after the other, as f32 values (exact: every
    /// bf16 and f16 value is an f32).
    pub fn local_gradient(&self) -> Vec<f32> {
        let flat: Vec<Tensor> = self
            .working
            .iter()
            .map(|w| w.grad().to_kind(Kind::Float).flatten(0, -1))
            .collect();
        let flat = Tensor::cat(&flat, 0).to_device(Device::Cpu);
        Vec::<f32>::try_from(&flat).expect("f32 gradient")
    }

    /// `flat` (one value per weight, in the order of [`Weights::local_gradient`]) cut into
    /// f32 tensors shaped like the master weights, on their device.
    pub fn shaped(&self, flat: &[f32]) -> Vec<Tensor> {
        assert_eq!(flat.len(), self.len(), "one value per weight");
        let mut at = 0;
        self.master
            .iter()
            .map(|m| {
                let n = m.numel();
                at += n;
                let part = Tensor::from_slice(&flat[at - n..at]).to_device(m.device());
                part.view(m.size().as_slice())
            })
            .collect()
    }

    /// The device both copies are on.
    pub fn device(&self) -> Device {
        self.master[0].device()
    }

    /// The number of weights.
    pub fn len(&self) -> usize {
        self.master.iter().map(Tensor::numel).sum()
    }

    /// True for a model without weights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Test loss and accuracy (%) of the model as it computes: on the working weights,
    /// in the compute format.
    pub fn evaluate(&mut self, images: &Tensor, labels: &Tensor) -> (f64, f64) {
        let (images, labels) = (
            images.to_device(self.device()),
            labels.to_device(self.device()),
        );
        let logits = tch::no_grad(|| {
            self.model
                .forward(&images.to_kind(self.compute.kind()))
                .to_kind(Kind::Float)
        });
        let loss = logits.cross_entropy_for_logits(&labels).double_value(&[]);
        let right = logits.argmax(1, false).eq_tensor(&labels).sum(Kind::Int64);
        let accuracy = 100.0 * right.int64_value(&[]) as f64 / labels.size()[0] as f64;
        (loss, accuracy)
    }
}
