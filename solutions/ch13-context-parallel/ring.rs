//! Chapter 13 exercise 13.2: solution.

use crate::blocks::{pack, unpack};
use crate::merge::merge;
use crate::partial::{attend_block, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: ring_forward
/// Send on before computing; attend or skip; merge; wait; the received block next.
pub fn ring_forward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Partial {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let (right, left) = ((r + 1) % p, (r + p - 1) % p);
    let shape = k.size();
    let (mut k, mut v) = (k.shallow_clone(), v.shallow_clone());
    let mut acc: Option<Partial> = None;
    for s in 0..p {
        let src = (r + p - s) % p;
        let mask = match (causal, src.cmp(&r)) {
            (false, _) | (true, std::cmp::Ordering::Less) => Some(Mask::Full),
            (true, std::cmp::Ordering::Equal) => Some(Mask::Diagonal),
            (true, std::cmp::Ordering::Greater) => None,
        };
        let out = pack(&k, &v);
        let mut next = vec![0f64; out.len()];
        mpi::request::scope(|scope| {
            let moving = (s + 1 < p).then(|| {
                let sent = world
                    .process_at_rank(right as i32)
                    .immediate_send(scope, &out[..]);
                let got = world
                    .process_at_rank(left as i32)
                    .immediate_receive_into(scope, &mut next[..]);
                (sent, got)
            });
            if let Some(mask) = mask {
                let part = attend_block(q, &k, &v, mask);
                acc = Some(match acc.take() {
                    None => part,
                    Some(a) => merge(&a, &part),
                });
            }
            if let Some((sent, got)) = moving {
                got.wait();
                sent.wait();
            }
        });
        if s + 1 < p {
            (k, v) = unpack(&next, &shape);
        }
    }
    acc.expect("the diagonal block is always attended")
}
// ANCHOR_END: ring_forward
