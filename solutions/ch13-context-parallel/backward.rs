//! Chapter 13 exercise 13.5: solution.

use crate::blocks::{pack, unpack};
use crate::grads::{block_grads, row_dot, Grads};
use crate::partial::{Mask, Partial};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cmp::Ordering;
use tch::Tensor;

// ANCHOR: ring_backward
/// k, v sent on before the compute; the accumulators after it, and once more at the end.
pub fn ring_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let (right, left) = (
        world.process_at_rank(((r + 1) % p) as i32),
        world.process_at_rank(((r + p - 1) % p) as i32),
    );
    let shape = k.size();
    let d_rows = row_dot(dout, &fwd.out);
    let mut dq = q.zeros_like();
    let (mut k, mut v) = (k.shallow_clone(), v.shallow_clone());
    let (mut dk, mut dv) = (k.zeros_like(), v.zeros_like());
    for s in 0..p {
        let src = (r + p - s) % p;
        let mask = match (causal, src.cmp(&r)) {
            (false, _) | (true, Ordering::Less) => Some(Mask::Full),
            (true, Ordering::Equal) => Some(Mask::Diagonal),
            (true, Ordering::Greater) => None,
        };
        let out = pack(&k, &v);
        let mut next = vec![0f64; out.len()];
        mpi::request::scope(|scope| {
            let moving = (s + 1 < p).then(|| {
                let sent = right.immediate_send(scope, &out[..]);
                let got = left.immediate_receive_into(scope, &mut next[..]);
                (sent, got)
            });
            if let Some(mask) = mask {
                let g = block_grads(q, &k, &v, dout, &fwd.lse, &d_rows, mask);
                dq += g.dq;
                dk += g.dk;
                dv += g.dv;
            }
            if let Some((sent, got)) = moving {
                got.wait();
                sent.wait();
            }
        });
        if p > 1 {
            // The accumulators follow their block; after the last step, home.
            let acc = pack(&dk, &dv);
            let mut came = vec![0f64; acc.len()];
            send_receive_into(&acc[..], &right, &mut came[..], &left);
            (dk, dv) = unpack(&came, &shape);
        }
        if s + 1 < p {
            (k, v) = unpack(&next, &shape);
        }
    }
    Grads { dq, dk, dv }
}
// ANCHOR_END: ring_backward
