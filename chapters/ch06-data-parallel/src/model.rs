//! Given: the models. An MLP and a small CNN for the trainer (`--model mlp|cnn`), the same
//! CNN K times wider for a GPU (`--model cnn:K`: about K^2 times the arithmetic of `cnn`,
//! so that a big GPU computes instead of waiting on kernel launches), and a deep MLP with
//! many small tensors for the sync benchmark.
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
    /// The CNN with `k` times the channels and dense width (k >= 2): 16k, 32k, 64k.
    WideCnn(usize),
    /// `n` hidden layers of width 32 (2 tensors each): many small gradients.
    DeepMlp(usize),
}

impl ModelKind {
    /// Parses `mlp`, `cnn`, `cnn:K` (K times wider; `cnn:1` is `cnn`), `deep-mlp` (30
    /// layers) or `deep-mlp:N`.
    pub fn parse(name: &str) -> Result<ModelKind, String> {
        let count = |prefix: &str| match name.strip_prefix(prefix).map(str::parse::<usize>) {
            Some(Ok(n)) if n > 0 => Some(n),
            _ => None,
        };
        match name {
            "mlp" => Ok(ModelKind::Mlp),
            "cnn" => Ok(ModelKind::Cnn),
            "deep-mlp" => Ok(ModelKind::DeepMlp(30)),
            _ => match (count("cnn:"), count("deep-mlp:")) {
                (Some(1), _) => Ok(ModelKind::Cnn),
                (Some(k), _) => Ok(ModelKind::WideCnn(k)),
                (_, Some(n)) => Ok(ModelKind::DeepMlp(n)),
                _ => Err(format!(
                    "unknown model `{name}` (expected mlp, cnn, cnn:K or deep-mlp[:N])"
                )),
            },
        }
    }

    /// The name [`ModelKind::parse`] reads back (stored in checkpoints).
    pub fn name(&self) -> String {
        match self {
            ModelKind::Mlp => "mlp".into(),
            ModelKind::Cnn => "cnn".into(),
            ModelKind::WideCnn(k) => format!("cnn:{k}"),
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
        ModelKind::Cnn => cnn(vs, (h, w), 1),
        ModelKind::WideCnn(k) => cnn(vs, (h, w), k as i64),
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

/// The CNN with `k` times the channels (k = 1: 16, 32, dense 64).
fn cnn(vs: &nn::Path, (h, w): (i64, i64), k: i64) -> nn::Sequential {
    let (c1, c2, dense) = (16 * k, 32 * k, 64 * k);
    let conv = nn::ConvConfig {
        padding: 1,
        ..Default::default()
    };
    let c = nn::LinearConfig::default();
    nn::seq()
        .add(nn::conv2d(vs / "conv1", 1, c1, 3, conv)) // (N, c1, H, W)
        .add_fn(|x| x.relu())
        .add(nn::conv2d(vs / "conv2", c1, c2, 3, conv)) // (N, c2, H, W)
        .add_fn(|x| x.relu().max_pool2d_default(2).flatten(1, -1)) // (N, c2*H/2*W/2)
        .add(nn::linear(vs / "fc1", c2 * (h / 2) * (w / 2), dense, c))
        .add_fn(|x| x.relu())
        .add(nn::linear(vs / "out", dense, 10, c))
}
// ANCHOR_END: models

/// Mean cross-entropy of `model` on a batch: the training loss.
pub fn loss(model: &nn::Sequential, images: &Tensor, labels: &Tensor) -> Tensor {
    model.forward(images).cross_entropy_for_logits(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_wide_cnns_are_wider() {
        for name in ["mlp", "cnn", "cnn:4", "deep-mlp:3"] {
            assert_eq!(ModelKind::parse(name).unwrap().name(), name);
        }
        assert_eq!(ModelKind::parse("cnn:1"), Ok(ModelKind::Cnn));
        assert!(ModelKind::parse("cnn:0").unwrap_err().contains("cnn:K"));
        let params = |kind| {
            let vs = nn::VarStore::new(tch::Device::Cpu);
            let _ = build(&vs.root(), kind, (8, 8));
            vs.trainable_variables()
                .iter()
                .map(Tensor::numel)
                .sum::<usize>()
        };
        // conv2 and fc1 grow with k^2 and k: more than 3x the parameters at k = 2.
        assert!(params(ModelKind::WideCnn(2)) > 3 * params(ModelKind::Cnn));
    }
}
