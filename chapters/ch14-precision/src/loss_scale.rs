//! Given: a loss scaler's state and its verdict (ex 14.3's `update` moves one to the
//! other). Nothing to run here: the trainer, the lab and the tests use it.

/// A loss scaler's state: the same on every rank, step after step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossScaler {
    /// `S`, what the loss is multiplied by (a power of two: scaling and unscaling are exact).
    pub scale: f32,
    /// Clean steps in a row after which the scale doubles.
    pub growth_interval: u32,
    /// Clean steps since the last overflow or growth.
    pub clean_steps: u32,
}

/// What a step does with its gradient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Unscale the gradient and step the weights.
    Step,
    /// An overflow somewhere: leave the weights as they are.
    Skip,
}

impl LossScaler {
    /// A scaler starting at `scale`, doubling after `growth_interval` clean steps.
    pub fn new(scale: f32, growth_interval: u32) -> Self {
        LossScaler {
            scale,
            growth_interval,
            clean_steps: 0,
        }
    }
}
