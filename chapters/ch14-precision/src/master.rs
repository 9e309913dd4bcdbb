//! Chapter 14 exercise 14.4: the step of mixed-precision training. The forward and
//! backward passes ran in bf16 or f16 on the working weights ([`Weights`]); the
//! optimizer runs in f32 on the master weights. Between them: did the scaled gradient
//! overflow (ex 14.3 decides, for every rank), the sum over the ranks (in f32, or with
//! bf16 on the wire: ex 14.2, whose codes are ex 14.1's), the mean and the loss scale
//! divided out, the step, and the working weights rounded from the new master. Check
//! with `make check CH=14`; see it train with `make run CH=14 BIN=mixed`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::encode::encode;
use crate::format::BF16;
use crate::loss_scale::{LossScaler, Verdict};
use crate::scaler::update;
use crate::weights::{Weights, Wire};
use crate::wire::sum_bf16_one_rounding;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use trainer_kit::optim::Optimizer;

// ANCHOR: step
/// One step on every rank of `world`, after this rank's backward pass (its gradient, the
/// mean over its batch times the loss scale, is `weights.local_gradient()`):
/// 1. with a `scaler` (f16): an inf or a NaN in this rank's gradient is an overflow;
///    ex 14.3's `update` decides for every rank; on [`Verdict::Skip`] return at once
///    (nothing moves); without a scaler the scale is 1;
/// 2. sum the gradient over the ranks: `Wire::F32` with `all_reduce_into`, `Wire::Bf16`
///    as bf16 codes (ex 14.1's `encode`) summed by ex 14.2's `sum_bf16_one_rounding`;
/// 3. divide the sum by (ranks x scale): the mean over the global batch, unscaled;
/// 4. step the f32 master weights with `opt` (`weights.shaped` gives the tensors), then
///    round them into the working weights (`weights.refresh()`).
///
/// Returns [`Verdict::Step`] or [`Verdict::Skip`].
pub fn step(
    world: &SimpleCommunicator,
    weights: &mut Weights,
    opt: &mut Optimizer,
    scaler: Option<&mut LossScaler>,
    wire: Wire,
) -> Verdict {
    // TODO(ex 14.4): overflow check and the scaler; the sum; divide by ranks x scale; step the master; refresh
    todo!("ex 14.4: the mixed-precision step: agree, sum, unscale, step the f32 master, round it back")
}
// ANCHOR_END: step
