//! Given: chapter 3's ring allreduce with bf16 on the wire and in the sums: each rank adds
//! its value to the partial sum it receives and rounds the result to bf16 before sending
//! it on, so a chunk's sum is rounded once per hop, `p - 1` times. The allgather then
//! passes the final codes around unchanged. Uses ex 14.1's `encode`.

use crate::encode::encode;
use crate::format::BF16;
use ch03::{chunk_range, owned_chunk, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: ring_sum_bf16
/// The sum over the ranks of `codes` (bf16 codes, the same length on every rank), by the
/// ring: reduce-scatter rounding every partial sum to bf16, then allgather. Chunk `c`'s
/// sum starts at rank `c` and collects ranks `c+1, c+2, ...` in turn:
/// `bf16(...bf16(bf16(x_c + x_{c+1}) + x_{c+2})... + x_{c-1})`.
pub fn ring_sum_bf16(world: &SimpleCommunicator, codes: &[u16]) -> Vec<u16> {
    let (p, r) = (world.size() as usize, world.rank() as usize);
    let (right, left) = ((r + 1) % p, (r + p - 1) % p);
    let chunk = |i: usize| chunk_range(codes.len(), p, i % p);
    let mut data = codes.to_vec();
    let mut got = vec![0u16; chunk(0).len()];
    for s in 0..p.saturating_sub(1) {
        let (send, recv) = (chunk(r + p - s), chunk(r + 2 * p - s - 1));
        let into = &mut got[..recv.len()];
        send_receive_into(
            &data[send],
            &world.process_at_rank(right as i32),
            into,
            &world.process_at_rank(left as i32),
        );
        for (mine, theirs) in data[recv].iter_mut().zip(into.iter()) {
            *mine = encode(&BF16, BF16.decode(*theirs) + BF16.decode(*mine));
        }
    }
    for s in 0..p.saturating_sub(1) {
        let (send, recv) = (chunk(owned_chunk(r, p) + p - s), chunk(r + p - s));
        let (out, into) = split_chunks(&mut data, send, recv);
        send_receive_into(
            out,
            &world.process_at_rank(right as i32),
            into,
            &world.process_at_rank(left as i32),
        );
    }
    data
}
// ANCHOR_END: ring_sum_bf16
