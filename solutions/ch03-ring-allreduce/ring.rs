//! Chapter 3 exercises 3.1 and 3.2: solutions.

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_scatter_ring
/// Ring reduce-scatter, in place: p - 1 steps, each one chunk out, one chunk in.
pub fn reduce_scatter_ring<T: Elem>(world: &SimpleCommunicator, data: &mut [T], op: Op) {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let len = data.len();
    let mut inbox = vec![T::default(); chunk_range(len, p, 0).len()]; // chunk 0 is largest
    for s in 0..p - 1 {
        let out = chunk_range(len, p, (rank + p - s) % p);
        let into = chunk_range(len, p, (rank + 2 * p - s - 1) % p);
        let inbox = &mut inbox[..into.len()];
        // communication: chunk r - s to the right, chunk r - s - 1 from the left
        send_receive_into(&data[out], &right, inbox, &left);
        op.reduce_into(&mut data[into], inbox);
    }
}
// ANCHOR_END: reduce_scatter_ring

// ANCHOR: allgather_ring
/// Ring allgather, in place: p - 1 steps, each passing on the chunk received last.
pub fn allgather_ring<T: Elem>(world: &SimpleCommunicator, data: &mut [T]) {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let len = data.len();
    for s in 0..p - 1 {
        let out = chunk_range(len, p, (rank + 1 + p - s) % p);
        let into = chunk_range(len, p, (rank + p - s) % p);
        let (out, into) = split_chunks(data, out, into);
        // communication: the chunk got last to the right, the next one from the left
        send_receive_into(out, &right, into, &left);
    }
}
// ANCHOR_END: allgather_ring
