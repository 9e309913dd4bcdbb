//! Given: the models. An MLP and a small CNN for the trainer (`--model mlp|cnn`), and a
//! deep MLP with many small tensors for the sync benchmark.
//!
//! Input (N, 1, H, W) f32; output (N, 10) logits. No dropout or batch norm: a step
//! depends only on the parameters and the batch (what the equivalence tests rely on).

use tch::nn::{self, Module};
use tch::Tensor;

/// The models the trainer can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// 2 hidden layers of 128: H*W -> 128 -> 128 -> 10.
    Mlp,
    /// conv 3x3 (16) -> conv 3x3 (32) -> max-pool 2 -> dense 64 -> 10.
    Cnn,
    /// `n` hidden layers of width 32 (2 tensors each): many small gradients.
    DeepMlp(usize),
}

impl ModelKind {
    /// Parses `mlp`, `cnn`, `deep-mlp` (30 layers) or `deep-mlp:N`.
    pub fn parse(name: &str) -> Result<ModelKind, String> {
        match name {
            "mlp" => Ok(ModelKind::Mlp),
            "cnn" => Ok(ModelKind::Cnn),
            "deep-mlp" => Ok(ModelKind::DeepMlp(30)),
            _ => match name.strip_prefix("deep-mlp:").map(str::parse::<usize>) {
                Some(Ok(n)) if n > 0 => Ok(ModelKind::DeepMlp(n)),
                _ => Err(format!(
                    "unknown model `{name}` (expected mlp, cnn or deep-mlp[:N])"
                )),
            },
        }
    }

    /// The name [`ModelKind::parse`] reads back (stored in checkpoints).
    pub fn name(&self) -> String {
        match self {
            ModelKind::Mlp => "mlp".into(),
            ModelKind::Cnn => "cnn".into(),
            ModelKind::DeepMlp(n) => format!("deep-mlp:{n}"),
        }
    }
}

// ANCHOR: models
/// Builds the model under `vs` for (H, W) images and 10 classes.
pub fn build(vs: &nn::Path, kind: ModelKind, (h, w): (i64, i64)) -> nn::Sequential {
    let c = nn::LinearConfig::default();
    match kind {
        ModelKind::Mlp => nn::seq()
            .add_fn(|x| x.flatten(1, -1)) // (N, H*W)
            .add(nn::linear(vs / "fc1", h * w, 128, c))
            .add_fn(|x| x.relu())
            .add(nn::linear(vs / "fc2", 128, 128, c))
            .add_fn(|x| x.relu())
            .add(nn::linear(vs / "out", 128, 10, c)),
        ModelKind::Cnn => {
            let conv = nn::ConvConfig {
                padding: 1,
                ..Default::default()
            };
            nn::seq()
                .add(nn::conv2d(vs / "conv1", 1, 16, 3, conv)) // (N, 16, H, W)
                .add_fn(|x| x.relu())
                .add(nn::conv2d(vs / "conv2", 16, 32, 3, conv)) // (N, 32, H, W)
                .add_fn(|x| x.relu().max_pool2d_default(2).flatten(1, -1)) // (N, 32*H/2*W/2)
                .add(nn::linear(vs / "fc1", 32 * (h / 2) * (w / 2), 64, c))
                .add_fn(|x| x.relu())
                .add(nn::linear(vs / "out", 64, 10, c))
        }
        ModelKind::DeepMlp(layers) => {
            let mut seq =
                nn::seq()
                    .add_fn(|x| x.flatten(1, -1))
                    .add(nn::linear(vs / "in", h * w, 32, c));
            for i in 0..layers {
                let layer = nn::linear(vs / format!("hidden{i:03}"), 32, 32, c);
                seq = seq.add_fn(|x| x.relu()).add(layer);
            }
            seq.add(nn::linear(vs / "out", 32, 10, c))
        }
    }
}
// ANCHOR_END: models

/// Mean cross-entropy of `model` on a batch: the training loss.
pub fn loss(model: &nn::Sequential, images: &Tensor, labels: &Tensor) -> Tensor {
    model.forward(images).cross_entropy_for_logits(labels)
}
