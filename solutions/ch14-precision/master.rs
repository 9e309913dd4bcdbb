//! Chapter 14 exercise 14.4: solution.

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
/// Agree on the overflow, sum, unscale, step the master, round it back.
pub fn step(
    world: &SimpleCommunicator,
    weights: &mut Weights,
    opt: &mut Optimizer,
    scaler: Option<&mut LossScaler>,
    wire: Wire,
) -> Verdict {
    let mine = weights.local_gradient();
    let scale = match scaler {
        Some(s) => {
            let scale = s.scale; // the scale this gradient was made with
            let overflow = mine.iter().any(|x| !x.is_finite());
            if update(world, s, overflow) == Verdict::Skip {
                return Verdict::Skip;
            }
            scale
        }
        None => 1.0,
    };
    let sum: Vec<f32> = match wire {
        Wire::F32 => {
            let mut sum = vec![0f32; mine.len()];
            world.all_reduce_into(&mine[..], &mut sum[..], SystemOperation::sum());
            sum
        }
        Wire::Bf16 => {
            let codes: Vec<u16> = mine.iter().map(|&x| encode(&BF16, x)).collect();
            let summed = sum_bf16_one_rounding(world, &codes);
            summed.iter().map(|&c| BF16.decode(c)).collect()
        }
    };
    let by = world.size() as f32 * scale;
    let mean: Vec<f32> = sum.iter().map(|x| x / by).collect();
    let grads = weights.shaped(&mean);
    opt.step(&mut weights.master, &grads);
    weights.refresh();
    Verdict::Step
}
// ANCHOR_END: step
