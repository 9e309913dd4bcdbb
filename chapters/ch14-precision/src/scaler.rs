//! Chapter 14 exercise 14.3: dynamic loss scaling, agreed over the ranks. f16's smallest
//! values are about 6e-8: a gradient below them rounds to zero. Multiplying the loss (so
//! every gradient) by a scale `S` lifts them into range; too large a scale overflows to
//! infinity instead. The scaler finds `S` as it trains, as PyTorch's `GradScaler` does:
//! an overflow halves it and skips the step; `growth_interval` clean steps in a row
//! double it. When each rank checks only its own shard of the gradient, the ranks must
//! decide together. Check with `make check CH=14`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::loss_scale::{LossScaler, Verdict};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: update
/// One step's decision on every rank of `world`, from this rank's `overflow` (an inf or a
/// NaN in the part of the scaled gradient it checked):
/// 1. the ranks agree: an overflow on any rank is an overflow on all (one allreduce with
///    `SystemOperation::max()` of 0 or 1);
/// 2. overflow: halve `scale`, reset `clean_steps` to 0, [`Verdict::Skip`];
/// 3. else: one more clean step; at `growth_interval` of them double `scale` and reset
///    `clean_steps` to 0; [`Verdict::Step`].
pub fn update(world: &SimpleCommunicator, scaler: &mut LossScaler, overflow: bool) -> Verdict {
    // TODO(ex 14.3): MAX of the flag over the ranks; then halve and skip, or count and maybe double
    todo!("ex 14.3: the loss scale's update, agreed over the ranks")
}
// ANCHOR_END: update
