//! Chapter 13 exercises 13.5 and 13.7: solution.

use crate::blocks::{pack, unpack, zigzag_chunks};
use crate::grads::{block_grads, row_dot, Grads};
use crate::partial::{Mask, Partial};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cmp::Ordering;
use tch::Tensor;

// ANCHOR: ring_backward
/// Ex 13.5's ring, for any parts: at step `s` the part of rank `src = (r - s) mod p` is
/// held; `attend(src, k, v, dk, dv)` adds this rank's share to its accumulators. `k`, `v`
/// are sent on before the compute, the accumulators after it, and once more at the end.
/// Returns this rank's own part's dK and dV, home.
fn ring_with_accumulators(
    world: &SimpleCommunicator,
    k: &Tensor,
    v: &Tensor,
    mut attend: impl FnMut(usize, &Tensor, &Tensor, &mut Tensor, &mut Tensor),
) -> (Tensor, Tensor) {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let (right, left) = (
        world.process_at_rank(((r + 1) % p) as i32),
        world.process_at_rank(((r + p - 1) % p) as i32),
    );
    let shape = k.size();
    let (mut k, mut v) = (k.shallow_clone(), v.shallow_clone());
    let (mut dk, mut dv) = (k.zeros_like(), v.zeros_like());
    for s in 0..p {
        let out = pack(&k, &v);
        let mut next = vec![0f64; out.len()];
        mpi::request::scope(|scope| {
            let moving = (s + 1 < p).then(|| {
                let sent = right.immediate_send(scope, &out[..]);
                let got = left.immediate_receive_into(scope, &mut next[..]);
                (sent, got)
            });
            attend((r + p - s) % p, &k, &v, &mut dk, &mut dv);
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
    (dk, dv)
}

/// The ring above, each held block attended with ex 13.2's mask; dQ summed here.
pub fn ring_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    let r = world.rank() as usize;
    let d_rows = row_dot(dout, &fwd.out);
    let mut dq = q.zeros_like();
    let (dk, dv) = ring_with_accumulators(world, k, v, |src, k, v, dk, dv| {
        let mask = match (causal, src.cmp(&r)) {
            (false, _) | (true, Ordering::Less) => Mask::Full,
            (true, Ordering::Equal) => Mask::Diagonal,
            (true, Ordering::Greater) => return,
        };
        let g = block_grads(q, k, v, dout, &fwd.lse, &d_rows, mask);
        dq += g.dq;
        *dk += g.dk;
        *dv += g.dv;
    });
    Grads { dq, dk, dv }
}
// ANCHOR_END: ring_backward

// ANCHOR: zigzag_backward
/// Ex 13.5's ring (`ring_with_accumulators`, above); at each step every pair of a query
/// chunk and a key chunk by ex 13.3's rule, each pair's gradients added to its chunks' rows.
pub fn zigzag_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
) -> Grads {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let c = q.size()[2] / 2;
    let half = |x: &Tensor, h: usize| x.narrow(2, h as i64 * c, c);
    let d_rows = row_dot(dout, &fwd.out);
    let dq = q.zeros_like();
    let (dk, dv) = ring_with_accumulators(world, k, v, |src, k, v, dk, dv| {
        let (mine, theirs) = (zigzag_chunks(r, p), zigzag_chunks(src, p));
        for (a, i) in mine.into_iter().enumerate() {
            for (b, j) in theirs.into_iter().enumerate() {
                let mask = match j.cmp(&i) {
                    Ordering::Less => Mask::Full,
                    Ordering::Equal => Mask::Diagonal,
                    Ordering::Greater => continue,
                };
                let (qa, la, da) = (half(q, a), half(&fwd.lse, a), half(&d_rows, a));
                let g = block_grads(
                    &qa,
                    &half(k, b),
                    &half(v, b),
                    &half(dout, a),
                    &la,
                    &da,
                    mask,
                );
                // The halves are views: adding to them adds to the rows of the whole.
                let (mut dq_a, mut dk_b, mut dv_b) = (half(&dq, a), half(dk, b), half(dv, b));
                dq_a += g.dq;
                dk_b += g.dk;
                dv_b += g.dv;
            }
        }
    });
    Grads { dq, dk, dv }
}
// ANCHOR_END: zigzag_backward
