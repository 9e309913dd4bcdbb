//! Chapter 3 exercise 3.3: solution.

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_ring_segmented
/// Ring allreduce with non-blocking, segmented reduce-scatter steps.
pub fn allreduce_ring_segmented<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
    segment: usize,
) -> Vec<T> {
    assert!(segment >= 1, "a segment holds at least one element");
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let mut data = xs.to_vec();
    let len = data.len();
    let mut inbox = vec![T::default(); chunk_range(len, p, 0).len()];
    for s in 0..p - 1 {
        let out = chunk_range(len, p, (rank + p - s) % p);
        let into = chunk_range(len, p, (rank + 2 * p - s - 1) % p);
        let (out, into) = split_chunks(&mut data, out, into);
        let inbox = &mut inbox[..into.len()];
        mpi::request::scope(|scope| {
            // communication: every segment of chunk r - s - 1 from the left, posted first
            let recvs: Vec<_> = inbox
                .chunks_mut(segment)
                .map(|seg| left.immediate_receive_into(scope, seg))
                .collect();
            // communication: every segment of chunk r - s to the right
            let sends: Vec<_> = out
                .chunks(segment)
                .map(|seg| right.immediate_send(scope, seg))
                .collect();
            // reduce each segment as it arrives, while the later ones travel
            for (recv, mine) in recvs.into_iter().zip(into.chunks_mut(segment)) {
                op.reduce_into(mine, recv.wait_for_data());
            }
            for send in sends {
                send.wait();
            }
        });
    }
    for s in 0..p - 1 {
        let out = chunk_range(len, p, (rank + 1 + p - s) % p);
        let into = chunk_range(len, p, (rank + p - s) % p);
        let (out, into) = split_chunks(&mut data, out, into);
        send_receive_into(out, &right, into, &left);
    }
    data
}
// ANCHOR_END: allreduce_ring_segmented
