//! A pipeline schedule: for each stage, the operations it runs, in order. Given code,
//! shared by the schedule generators (ex 7.3, 7.4) and the executor (ex 7.5).
//!
//! The communication an operation implies, and the rule the executor follows (and the
//! schedule checks assume):
//! - `Forward(m)` on stage `s`: receive micro-batch `m`'s activation from stage `s - 1`
//!   (unless `s` is the first stage), run the stage's forward pass, send the output to
//!   stage `s + 1` (unless `s` is the last).
//! - `Backward(m)` on stage `s`: receive the gradient of micro-batch `m`'s output from
//!   stage `s + 1` (unless `s` is the last), run the backward pass, send the gradient of
//!   its input to stage `s - 1` (unless `s` is the first).
//! - A send never waits for its receive (the executor posts it non-blocking and completes
//!   it before the step ends); a receive waits until its message was sent. So a schedule
//!   deadlocks exactly when some stages wait in a cycle for messages not yet sent.

/// One operation of a stage: a forward or backward pass of one micro-batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// Forward pass of micro-batch `m` (0-based).
    Forward(usize),
    /// Backward pass of micro-batch `m` (0-based).
    Backward(usize),
}

/// `schedule[s]`: the operations stage `s` runs in one training step, in order.
pub type Schedule = Vec<Vec<Op>>;

/// The schedules this chapter builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// All forwards, then all backwards (GPipe).
    GPipe,
    /// Warm-up forwards, then one forward one backward, then cool-down backwards
    /// (1F1B, PipeDream-Flush).
    OneFOneB,
}
