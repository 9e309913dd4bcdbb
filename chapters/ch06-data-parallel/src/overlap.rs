//! Given: bucketed gradient sync with non-blocking allreduces, overlapped with packing.
//!
//! PyTorch DDP starts a bucket's allreduce from a backward hook, as soon as the bucket's
//! last gradient is ready, so communication overlaps the rest of the backward pass. tch
//! 0.24 has no backward hooks: `backward()` returns only when every gradient is done. What
//! we CAN overlap is the rest of the sync itself: while bucket i's allreduce is in flight
//! (MPI_Iallreduce), we pack bucket i+1, and we unpack only after the waits.
//! Used by the trainer with `--sync overlap`; compared with the other two in the tests.

use crate::flat;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use tch::Tensor;

/// One send and one receive buffer per bucket, kept between steps.
#[derive(Default)]
pub struct OverlapBuffers {
    sends: Vec<Vec<f32>>,
    recvs: Vec<Vec<f32>>,
}

// ANCHOR: overlap
/// Averages `grads` over the ranks of `world`, one non-blocking allreduce per bucket,
/// each started as soon as its bucket is packed.
pub fn allreduce_overlapped(
    world: &SimpleCommunicator,
    grads: &mut [Tensor],
    buckets: &[Range<usize>],
    bufs: &mut OverlapBuffers,
) {
    let ranks = world.size() as f32;
    bufs.sends.resize_with(buckets.len(), Vec::new);
    bufs.recvs.resize_with(buckets.len(), Vec::new);
    mpi::request::scope(|scope| {
        let mut in_flight = Vec::with_capacity(buckets.len());
        let pairs = bufs.sends.iter_mut().zip(bufs.recvs.iter_mut());
        for (bucket, (send, recv)) in buckets.iter().zip(pairs) {
            let n = flat::total_len(&grads[bucket.clone()]);
            send.resize(n, 0.0);
            recv.resize(n, 0.0);
            // computation, overlapped with the allreduces already in flight
            flat::pack(&grads[bucket.clone()], send);
            // communication: start this bucket's allreduce, do not wait
            let send: &Vec<f32> = send;
            let sum = SystemOperation::sum();
            in_flight.push(world.immediate_all_reduce_into(scope, &send[..], &mut recv[..], sum));
        }
        for request in in_flight {
            request.wait();
        }
    });
    for (bucket, recv) in buckets.iter().zip(bufs.recvs.iter_mut()) {
        recv.iter_mut().for_each(|x| *x /= ranks);
        flat::unpack(recv, &mut grads[bucket.clone()]);
    }
}
// ANCHOR_END: overlap
