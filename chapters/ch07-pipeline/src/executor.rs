//! Chapter 7 exercise 7.5: the executor, one stage's part of a pipeline step.
//!
//! It runs the operations a schedule gives this stage, in order, following the rule of
//! [`crate::plan`]: a forward receives its input from the stage before (unless first) and
//! sends its output on (unless last); a backward receives the gradient of its output from
//! the stage after (unless last) and sends the gradient of its input back (unless first).
//! Receives wait; each send is non-blocking and completes with the next op's receive (one
//! staging buffer per stage; `send_check` shows GPipe and 1F1B cannot deadlock so). Under
//! `--recompute stage` a forward keeps no graph and its backward runs it again
//! ([`crate::recompute`], given).
//! Check with `make check CH=07` (tests/executor.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::addition::MicroBatches;
use crate::plan::Action;
use crate::spans::{Phase, Timeline};
use crate::stage_model::StageModel;
use crate::wire::{Transfer, WireElem};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::HashMap;
use std::time::Instant;
use tch::{Device, Tensor};

// ANCHOR: run_ops
/// Runs this stage's `ops` (stage `s` = rank of `pipe`, of `p` = its size) on `batch`'s
/// `m` micro-batches, with `io.send` / `io.recv` (tag = micro-batch index; shapes
/// `stage.in_shape(rows)`, `stage.out_shape(rows)`). Forward(i): keep the input (marked
/// `requires_grad` when it was received) and the output; on the last stage the output is
/// the micro-batch's loss divided by `m`, so that the gradients accumulated over the `m`
/// backwards are those of the whole batch's mean loss. Backward(i): backward from the
/// kept output (with the received gradient), send the input's gradient. Recomputation
/// (`stage.recompute`, given): run each forward through `stage.recompute.forward(..)`,
/// keep `stage.recompute.keep(y)`, and take the output to back-propagate from
/// `stage.recompute.again(kept, ..)` (the forward run again under `--recompute stage`;
/// read the last stage's loss at the forward). Records each receive, forward, backward
/// and send in `trace`. Returns the batch's mean loss on the last stage (the sum of the
/// scaled losses), 0 elsewhere; an `Err` names the stage and the operation. Stage every
/// send in one buffer: post it, run the next op's receive, then wait for it, all in one
/// `mpi::request::scope` (a helper of your own).
pub fn run_ops<E: WireElem>(
    pipe: &SimpleCommunicator,
    ops: &[Action],
    stage: &StageModel,
    batch: &MicroBatches,
    io: Transfer<E>,
    trace: &mut Timeline,
) -> Result<f64, String> {
    // TODO(ex 7.5): one buffer; each op: (owed send + its receive, in a scope), compute, owe its send
    todo!("ex 7.5: run one stage's operations of a pipeline schedule")
}
// ANCHOR_END: run_ops
