//! Chapter 14 exercise 14.3: solution.

use crate::loss_scale::{LossScaler, Verdict};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: update
/// The flag's MAX over the ranks, then the state machine.
pub fn update(world: &SimpleCommunicator, scaler: &mut LossScaler, overflow: bool) -> Verdict {
    let mut any = 0u8;
    world.all_reduce_into(&u8::from(overflow), &mut any, SystemOperation::max());
    if any == 1 {
        scaler.scale /= 2.0;
        scaler.clean_steps = 0;
        return Verdict::Skip;
    }
    scaler.clean_steps += 1;
    if scaler.clean_steps == scaler.growth_interval {
        scaler.scale *= 2.0;
        scaler.clean_steps = 0;
    }
    Verdict::Step
}
// ANCHOR_END: update
