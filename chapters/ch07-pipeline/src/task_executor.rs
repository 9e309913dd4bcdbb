//! Chapter 7 exercise 7.9: the executor for plans by rank, where a rank holds several
//! stages (interleaved 1F1B) and a backward may come in two halves (zero-bubble).
//!
//! It runs this rank's tasks in order, by the rule of [`crate::plan`]: messages are tagged
//! with [`crate::plan::tag`] (stage, direction, micro-batch), a message between two stages
//! of this rank goes through MPI like any other (a send to itself: it never waits).
//! Check with `make check CH=07` (tests/task_executor.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::addition::MicroBatches;
use crate::plan::{rank_of, tag, Pass, Task};
use crate::spans::{Phase, Timeline};
use crate::stage_model::StageModel;
use crate::wire::{Transfer, WireElem};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::HashMap;
use std::time::Instant;
use tch::Tensor;

// ANCHOR: run_tasks
/// Runs this rank's `tasks` (rank `r` of `pipe`, of `p`) on `batch`'s `m` micro-batches;
/// `chunks[c]` is stage `c * p + r` of `v * p` (`v = chunks.len()`). `Forward` and
/// `Backward` as in ex 7.5. `InputGrad`: the gradient of the stage's input only (tch's
/// `Tensor::run_backward(&[out], &[input], true, false)`: keep the graph), sent back at
/// once; nothing to compute on stage 0 (its input is data). `WeightGrad`: the rest, into
/// the parameters' gradients (a backward from the same output). Returns the batch's mean
/// loss on the rank holding the last stage, 0 elsewhere; an `Err` names the task. `io`
/// moves `E`s (the model's dtype, f32 or f64), one buffer of them per send.
pub fn run_tasks<E: WireElem>(
    pipe: &SimpleCommunicator,
    tasks: &[Task],
    chunks: &[StageModel],
    batch: &MicroBatches,
    io: Transfer<E>,
    trace: &mut Timeline,
) -> Result<f64, String> {
    // TODO(ex 7.9): ex 7.5's loop over tasks, one kept entry per (stage, micro-batch)
    todo!("ex 7.9: run a rank's tasks over several stages, with split backwards")
}
// ANCHOR_END: run_tasks
