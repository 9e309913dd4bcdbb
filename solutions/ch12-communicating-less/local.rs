//! Chapter 12 exercise 12.5: solution.

use crate::averaging::Averaging;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: average
/// Sum into a second buffer (MPI's send and receive buffers must differ), then divide.
pub fn average(world: &SimpleCommunicator, params: &mut [f32]) {
    let mut sum = vec![0f32; params.len()];
    world.all_reduce_into(&params[..], &mut sum[..], SystemOperation::sum());
    let p = world.size() as f32;
    for (x, s) in params.iter_mut().zip(&sum) {
        *x = s / p;
    }
}
// ANCHOR_END: average

// ANCHOR: step
/// The local update, then the average on every H-th step.
pub fn step(
    world: &SimpleCommunicator,
    avg: &mut Averaging,
    params: &mut [f32],
    grad: &[f32],
    lr: f32,
) -> bool {
    for (x, g) in params.iter_mut().zip(grad) {
        *x -= lr * g;
    }
    avg.since += 1;
    if avg.since < avg.every {
        return false;
    }
    average(world, params);
    avg.since = 0;
    avg.syncs += 1;
    avg.bytes_sent += std::mem::size_of_val(params);
    true
}
// ANCHOR_END: step
