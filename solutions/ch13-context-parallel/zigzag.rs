//! Chapter 13 exercise 13.3: solution.

use crate::blocks::{pack, unpack, zigzag_chunks};
use crate::merge::merge;
use crate::partial::{attend_block, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cmp::Ordering;
use tch::Tensor;

// ANCHOR: zigzag_forward
/// Ex 13.2's ring; at each step every pair of a query chunk and a key chunk by the causal
/// rule on the chunks' places in the sequence; one merge per query chunk.
pub fn zigzag_forward(world: &SimpleCommunicator, q: &Tensor, k: &Tensor, v: &Tensor) -> Partial {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let (right, left) = ((r + 1) % p, (r + p - 1) % p);
    let (shape, c) = (k.size(), q.size()[2] / 2);
    let half = |x: &Tensor, h: usize| x.narrow(2, h as i64 * c, c);
    let (mut k, mut v) = (k.shallow_clone(), v.shallow_clone());
    let mut acc: [Option<Partial>; 2] = [None, None];
    for s in 0..p {
        let (mine, theirs) = (zigzag_chunks(r, p), zigzag_chunks((r + p - s) % p, p));
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
            for (a, i) in mine.into_iter().enumerate() {
                for (b, j) in theirs.into_iter().enumerate() {
                    let mask = match j.cmp(&i) {
                        Ordering::Less => Mask::Full,
                        Ordering::Equal => Mask::Diagonal,
                        Ordering::Greater => continue,
                    };
                    let part = attend_block(&half(q, a), &half(&k, b), &half(&v, b), mask);
                    acc[a] = Some(match acc[a].take() {
                        None => part,
                        Some(sofar) => merge(&sofar, &part),
                    });
                }
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
    let [early, late] = acc.map(|a| a.expect("each query chunk sees its own diagonal"));
    Partial {
        out: Tensor::cat(&[early.out, late.out], 2),
        lse: Tensor::cat(&[early.lse, late.lse], 2),
    }
}
// ANCHOR_END: zigzag_forward
