//! Chapter 12 exercise 12.5: local SGD. Each rank takes `H` plain SGD steps on its own
//! gradient, with no communication; then the ranks average their parameters with one
//! allreduce. At `H = 1` that is the dense data-parallel step; a larger `H` sends `H`
//! times fewer messages. Check with `make check CH=12`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::averaging::Averaging;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: average
/// Replaces `params` on every rank by the mean over the ranks of every rank's `params`:
/// one MPI_Allreduce of the sum, then a division by the number of ranks.
pub fn average(world: &SimpleCommunicator, params: &mut [f32]) {
    // TODO(ex 12.5): all_reduce_into a new buffer with the sum, then divide by world.size()
    todo!("ex 12.5: sum the parameters over the ranks, divide by the number of ranks")
}
// ANCHOR_END: average

// ANCHOR: step
/// One local-SGD step: `params -= lr · grad` (this rank's own gradient, no
/// communication), one more step in `avg.since`; when that makes `avg.every` steps since
/// the last average, [`average`] the parameters, set `avg.since` back to 0, count the
/// average in `avg.syncs` and its bytes (the parameters' size) in `avg.bytes_sent`.
/// Returns whether this step averaged. Every rank calls it at every step.
pub fn step(
    world: &SimpleCommunicator,
    avg: &mut Averaging,
    params: &mut [f32],
    grad: &[f32],
    lr: f32,
) -> bool {
    // TODO(ex 12.5): update, count the step, average on the H-th, reset and count
    todo!("ex 12.5: a local step; every H-th step, average the parameters over the ranks")
}
// ANCHOR_END: step
