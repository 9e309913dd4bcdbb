//! Given: activation recomputation (`--recompute none|stage`), the three calls the
//! executor (ex 7.5) makes, and a measurement of what each mode holds.
//!
//! With `none`, a forward records its graph: LibTorch keeps, behind the output, every
//! tensor the backward will need (per residual block its input and its ReLU output), from
//! the forward to the backward of that micro-batch. With `stage`, the forward runs without
//! a graph, the executor keeps only the stage's input (and, on the last stage, the loss, a
//! scalar), and the backward runs the forward again, this time recording, then
//! back-propagates through it: one more forward per micro-batch, for a middle stage that
//! holds one tensor per micro-batch in flight instead of `2 x blocks + 1` (each block's
//! input and ReLU output, and the stage's output).
//!
//! Measured by `cargo run --release -p ch07-pipeline --features solution --bin
//! recompute_bench`; checked by tests/recompute.rs.

use crate::stage_model::StageModel;
use tch::Tensor;

/// What a stage keeps from a micro-batch's forward to its backward.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recompute {
    /// Keep the forward's graph (every block's saved tensors).
    #[default]
    None,
    /// Keep only the stage's input; the backward runs the forward again.
    Stage,
}

/// `--recompute`'s values.
pub const RECOMPUTE: &[(&str, Recompute)] =
    &[("none", Recompute::None), ("stage", Recompute::Stage)];

// ANCHOR: calls
impl Recompute {
    /// A micro-batch's forward, `pass` (the stage's forward, and the loss on the last
    /// stage): with its graph (`None`) or without (`Stage`).
    pub fn forward(self, pass: impl FnOnce() -> Tensor) -> Tensor {
        match self {
            Recompute::None => pass(),
            Recompute::Stage => tch::no_grad(pass),
        }
    }

    /// What to keep of the forward's output `y` until the backward: `y` itself (`None`),
    /// or only a scalar (the last stage's loss; its value is read before the backward):
    /// under `Stage` a non-scalar output was sent on and is not kept.
    pub fn keep(self, y: Tensor) -> Tensor {
        match self {
            Recompute::Stage if y.numel() > 1 => Tensor::new(),
            _ => y,
        }
    }

    /// For the backward: the output with its graph: the kept `y` (`None`), or `pass` run
    /// again, recording (`Stage`).
    pub fn again(self, y: Tensor, pass: impl FnOnce() -> Tensor) -> Tensor {
        match self {
            Recompute::None => y,
            Recompute::Stage => pass(),
        }
    }
}
// ANCHOR_END: calls

/// Heap bytes a stage held, measured with [`crate::heap::in_use`] (see [`measure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// After `h` forwards, their inputs and what each forward kept.
    pub after_forwards: u64,
    /// At the start of the first backward: the above, plus its recomputed graph under
    /// `Stage`.
    pub at_backward: u64,
}

/// The bytes a middle stage (input and output `[rows, width]`) holds, in units of one
/// `[rows, width]` tensor, with `h` micro-batches in flight, after their forwards and at
/// the start of one backward: `(2 blocks + 1) h` and the same (`None`), `h` and
/// `h + 2 blocks` (`Stage`).
pub fn formula(mode: Recompute, blocks: usize, h: usize) -> (usize, usize) {
    match mode {
        Recompute::None => ((2 * blocks + 1) * h, (2 * blocks + 1) * h),
        Recompute::Stage => (h, h + 2 * blocks),
    }
}

/// Measures, on `stage` (neither first nor last), what `h` forwards of micro-batches of
/// `rows` keep under `mode` (their inputs made after the first reading, as received
/// inputs are), then what the first backward adds before it runs; then runs the
/// backwards, so that the stage's gradients are those of the sum of the outputs. `None`
/// without glibc.
pub fn measure(stage: &StageModel, mode: Recompute, rows: i64, h: usize) -> Option<Held> {
    let kind = stage.shape.dtype.kind();
    let shape = stage.in_shape(rows);
    let before = crate::heap::in_use()?;
    let mut kept = Vec::with_capacity(h);
    for i in 0..h {
        tch::manual_seed(i as i64);
        let x = Tensor::randn(&shape[..], (kind, stage.device)).set_requires_grad(true);
        let y = mode.forward(|| stage.forward(&x));
        kept.push((x, mode.keep(y)));
    }
    let after_forwards = crate::heap::in_use()? - before;
    let mut at_backward = after_forwards;
    for (n, (x, y)) in kept.into_iter().enumerate() {
        let y = mode.again(y, || stage.forward(&x));
        if n == 0 {
            at_backward = crate::heap::in_use()?.saturating_sub(before);
        }
        y.sum(kind).backward();
    }
    Some(Held {
        after_forwards,
        at_backward,
    })
}
