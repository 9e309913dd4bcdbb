//! Chapter 6 exercise 6.2: an identical start, by broadcasting the parameters (solution).

use crate::flat;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: broadcast_parameters
/// Overwrites every rank's `params` with rank `root`'s, in one broadcast.
pub fn broadcast_parameters(world: &SimpleCommunicator, root: i32, params: &mut [Tensor]) {
    let mut buf = vec![0f32; flat::total_len(params)];
    if world.rank() == root {
        flat::pack(params, &mut buf);
    }
    world.process_at_rank(root).broadcast_into(&mut buf[..]);
    if world.rank() != root {
        flat::unpack(&buf, params);
    }
}
// ANCHOR_END: broadcast_parameters
