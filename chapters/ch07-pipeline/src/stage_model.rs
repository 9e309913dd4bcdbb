//! Given: the model and its cut into stages.
//!
//! The model: `embed` (20d -> width), `depth` identical residual blocks
//! `x + fc2(relu(fc1(x)))` (width -> width -> width), `head` (width -> (d+1) x 10). A
//! stage holds a contiguous range of blocks; the first stage also holds `embed`, the last
//! `head` and the loss. Every tensor has a global name (`block03.fc1.weight`) and is
//! initialised from the seed and its name only, so any cut of the model starts from the
//! same parameters as the whole model in one process. Its element type is `--dtype` (f32 by
//! default; the equivalence checks use f64).

use crate::addition::Addition;
use crate::recompute::Recompute;
use crate::wire::{Dtype, DTYPES};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use tch::nn::{self, Module};
use tch::{Device, Tensor};

/// The model's size and element type (its flags: `--digits`, `--width`, `--depth`,
/// `--dtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Args)]
pub struct Shape {
    #[command(flatten)]
    pub task: Addition,
    /// Width of the residual blocks
    #[arg(long, value_name = "W", default_value_t = 96)]
    pub width: i64,
    /// Residual blocks (at least one per stage)
    #[arg(long, value_name = "L", default_value_t = 8)]
    pub depth: usize,
    /// Element type of the parameters, activations and messages: f32 or f64
    #[arg(long, value_name = "f32|f64", value_parser = trainer_kit::cli::one_of("--dtype", DTYPES), default_value = "f32")]
    pub dtype: Dtype,
}

/// One stage's part of the model.
pub struct StageModel {
    /// Which blocks this stage holds.
    pub blocks: Range<usize>,
    pub first: bool,
    pub last: bool,
    pub shape: Shape,
    pub device: Device,
    /// What a forward keeps for its backward (`--recompute`; the executor asks it).
    pub recompute: Recompute,
    /// Forwards run so far: [without a graph, recording one] (what the checks count).
    passes: [AtomicUsize; 2],
    _vs: nn::VarStore,
    embed: Option<nn::Linear>,
    layers: Vec<(nn::Linear, nn::Linear)>,
    head: Option<nn::Linear>,
    /// Parameter names and tensors, in model order.
    pub names: Vec<String>,
    pub params: Vec<Tensor>,
}

fn seed_of(seed: u64, name: &str) -> i64 {
    let h = name.bytes().fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (h >> 1) as i64
}

// ANCHOR: build
impl StageModel {
    /// Builds blocks `blocks` of a model of `shape` (plus `embed` on the first stage and
    /// `head` on the last), initialised from `seed` (on the CPU, whatever `device`), on
    /// `device`.
    pub fn new(
        shape: Shape,
        blocks: Range<usize>,
        first: bool,
        last: bool,
        seed: u64,
        device: Device,
    ) -> StageModel {
        // Built on the CPU, then moved: a GPU's random generator draws other numbers from
        // the same seed, so a stage built on the device would start from another model.
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let c = nn::LinearConfig::default();
        let w = shape.width;
        let make = |name: &str, i: i64, o: i64| {
            tch::manual_seed(seed_of(seed, name));
            nn::linear(&root / name, i, o, c)
        };
        let embed = first.then(|| make("embed", shape.task.input_width(), w));
        let layers = blocks
            .clone()
            .map(|b| {
                let fc1 = make(&format!("block{b:02}_fc1"), w, w);
                let mut fc2 = make(&format!("block{b:02}_fc2"), w, w);
                // Each block starts close to the identity: a deep stack stays tame.
                tch::no_grad(|| {
                    let _ = fc2.ws.g_mul_scalar_(0.1 / (shape.depth as f64).sqrt());
                });
                (fc1, fc2)
            })
            .collect();
        let head = last.then(|| make("head", w, shape.task.answer_digits() * 10));
        let mut vs = vs;
        match shape.dtype {
            Dtype::F32 => vs.float(),
            Dtype::F64 => vs.double(),
        }
        vs.set_device(device);
        let mut named: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
        named.sort_by_key(|a| order(&a.0));
        let (names, params) = named.into_iter().unzip();
        StageModel {
            blocks,
            first,
            last,
            shape,
            device,
            recompute: Recompute::None,
            passes: Default::default(),
            _vs: vs,
            embed,
            layers,
            head,
            names,
            params,
        }
    }

    /// The stage's forward pass: (rows, in) -> (rows, width), or logits (rows, d+1, 10) on
    /// the last stage.
    pub fn forward(&self, x: &Tensor) -> Tensor {
        let mut h = match &self.embed {
            Some(e) => e.forward(&x.to_kind(self.shape.dtype.kind())), // the task's are f64
            None => x.shallow_clone(),
        };
        for (fc1, fc2) in &self.layers {
            h = &h + fc2.forward(&fc1.forward(&h).relu());
        }
        let y = match &self.head {
            Some(head) => head
                .forward(&h)
                .view([-1, self.shape.task.answer_digits(), 10]),
            None => h,
        };
        self.passes[usize::from(y.requires_grad())].fetch_add(1, Ordering::Relaxed);
        y
    }

    /// Forwards run so far: (without a graph, recording one).
    pub fn passes(&self) -> (usize, usize) {
        let [free, graph] = &self.passes;
        (free.load(Ordering::Relaxed), graph.load(Ordering::Relaxed))
    }
    // ANCHOR_END: build

    /// Mean cross-entropy of `logits` (rows, d+1, 10) against `targets` (rows, d+1).
    pub fn loss(logits: &Tensor, targets: &Tensor) -> Tensor {
        // In the logits' own kind (tch's cross_entropy_for_logits would compute it in f32).
        logits
            .view([-1, 10])
            .log_softmax(-1, logits.kind())
            .nll_loss(&targets.view([-1]))
    }

    /// The shape of what this stage receives for a micro-batch of `rows`.
    pub fn in_shape(&self, rows: i64) -> Vec<i64> {
        match self.first {
            true => vec![rows, self.shape.task.input_width()],
            false => vec![rows, self.shape.width],
        }
    }

    /// The shape of what this stage sends on (the activation), for `rows`.
    pub fn out_shape(&self, rows: i64) -> Vec<i64> {
        vec![rows, self.shape.width]
    }

    /// Sets every parameter's gradient to zero.
    pub fn zero_grad(&mut self) {
        for p in &mut self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// The gradients (zeros where none was computed).
    pub fn grads(&self) -> Vec<Tensor> {
        self.params
            .iter()
            .map(|p| match p.grad() {
                g if g.defined() => g,
                _ => p.zeros_like(),
            })
            .collect()
    }

    /// Number of parameters.
    pub fn count(&self) -> i64 {
        self.params.iter().map(|p| p.numel() as i64).sum()
    }
}

/// Sort key: embed, the blocks in order (fc1 before fc2, weight before bias), head.
fn order(name: &str) -> (u8, String) {
    match name {
        n if n.starts_with("embed") => (0, n.into()),
        n if n.starts_with("head") => (2, n.into()),
        n => (1, n.into()),
    }
}

/// The whole model in one process (the reference the pipeline is compared with).
pub fn whole(shape: Shape, seed: u64, device: Device) -> StageModel {
    StageModel::new(shape, 0..shape.depth, true, true, seed, device)
}
