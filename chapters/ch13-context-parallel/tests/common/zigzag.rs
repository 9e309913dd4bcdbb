//! Ex 13.3's and ex 13.7's checks, shared with their planted mistakes: causal ring
//! attention over the zig-zag layout against one process's attention over the whole
//! sequence, and its backward against LibTorch's autograd there, each rank's two chunks
//! of rows; a wrong answer compared with what the classic slips give.

use super::backward::{autograd, CLOSE};
use super::{far, qkv, EXACT};
use ch13::blocks::{zigzag_chunks, zigzag_of};
use ch13::grads::Grads;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::lockstep::agree;

/// A zig-zag ring attention to check: ex 13.3's, or a planted mistake.
pub type ZigZag = fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor) -> Partial;

/// Tokens of the check's sequence: 2p divides it for p = 1, 2, 3, 4, 5 and 8.
const SEQ: i64 = 240;

/// Ex 13.3's check: at every rank count of `world`, a causal sequence of 240 tokens (2
/// sequences, 2 heads, head_dim 8, two seeds) in the zig-zag layout: this rank's rows and
/// their lse against one process's attention, within 1e-12. The ranks agree after each
/// case: all fail with the first failing rank's message.
pub fn check_zigzag(world: &SimpleCommunicator, zigzag: ZigZag) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [41, 42] {
        let (q, k, v) = qkv(seed, [2, 2, SEQ, 8], 1.0);
        let mine = |x: &Tensor| zigzag_of(x, r, p);
        let got = zigzag(world, &mine(&q), &mine(&k), &mine(&v));
        let whole = full_attention(&q, &k, &v, true);
        let want = mine(&whole);
        let (dout, dlse) = (far(&got.out, &want), far(&got.lse, &lse_rows(&q, &k, r, p)));
        let mine = if dout > EXACT || dlse > EXACT {
            Err(format!(
                "causal attention in the zig-zag layout, {p} rank(s), seed {seed}: rank {r}'s rows \
                 (chunks {:?} of {}) off by {dout:.1e} (lse {dlse:.1e}; want 1e-12): {}",
                zigzag_chunks(r, p),
                2 * p,
                cause(&q, &k, &v, r, p, &got)
            ))
        } else {
            Ok(())
        };
        agree(world, mine)?;
    }
    Ok(())
}

/// The lse of rank `r`'s rows in the zig-zag layout, causal, from one process.
fn lse_rows(q: &Tensor, k: &Tensor, r: usize, p: usize) -> Tensor {
    let rule = |i: usize, j: usize, _: usize, _: usize| causal(i, j);
    attend_by(q, k, &k.zeros_like(), r, p, rule).1
}

/// The causal rule for query chunk `i` against key chunk `j`.
fn causal(i: usize, j: usize) -> Option<Mask> {
    match j.cmp(&i) {
        std::cmp::Ordering::Less => Some(Mask::Full),
        std::cmp::Ordering::Equal => Some(Mask::Diagonal),
        std::cmp::Ordering::Greater => None,
    }
}

/// One process's attention of rank `r`'s two query chunks over every key chunk `j` by
/// `rule(i, j, r, owner of j)`: the out and lse of its rows, chunk `r`'s first.
fn attend_by(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    r: usize,
    p: usize,
    rule: impl Fn(usize, usize, usize, usize) -> Option<Mask>,
) -> (Tensor, Tensor) {
    let c = SEQ / (2 * p as i64);
    let d = *q.size().last().expect("head_dim") as f64;
    let (mut outs, mut lses) = (vec![], vec![]);
    for i in zigzag_chunks(r, p) {
        let qi = q.narrow(2, i as i64 * c, c);
        let mut s = qi.matmul(&k.transpose(-2, -1)) / d.sqrt();
        for j in 0..2 * p {
            let owner = if j < p { j } else { 2 * p - 1 - j };
            let cut = match rule(i, j, r, owner) {
                Some(Mask::Full) => continue,
                Some(Mask::Diagonal) => Tensor::ones([c, c], (Kind::Bool, Device::Cpu)).triu(1),
                None => Tensor::ones([c, c], (Kind::Bool, Device::Cpu)),
            };
            let full = Tensor::zeros([c, SEQ], (Kind::Bool, Device::Cpu));
            full.narrow(1, j as i64 * c, c).copy_(&cut);
            s = s.masked_fill(&full, f64::NEG_INFINITY);
        }
        let lse = s.logsumexp([-1], false);
        outs.push((s - lse.unsqueeze(-1)).exp().matmul(v));
        lses.push(lse);
    }
    (Tensor::cat(&outs, 2), Tensor::cat(&lses, 2))
}

/// What a wrong result of rank `r` looks like: one process's attention by a slipped rule.
fn cause(q: &Tensor, k: &Tensor, v: &Tensor, r: usize, p: usize, got: &Partial) -> String {
    let is = |rule: &dyn Fn(usize, usize, usize, usize) -> Option<Mask>| {
        far(&got.out, &attend_by(q, k, v, r, p, rule).0) <= 1e-9
    };
    if is(&|i, j, _, _| (j <= i).then_some(Mask::Full)) {
        return "a pair of the same chunk (j == i) was attended without the causal mask: use \
                Mask::Diagonal there"
            .into();
    }
    if is(&|i, j, _, _| Some(if j == i { Mask::Diagonal } else { Mask::Full })) {
        return "pairs with j > i were attended: a key chunk later in the sequence than the \
                query chunk is all future, skip it"
            .into();
    }
    let by_rank = |_: usize, _: usize, r: usize, owner: usize| match owner.cmp(&r) {
        std::cmp::Ordering::Less => Some(Mask::Full),
        std::cmp::Ordering::Equal => Some(Mask::Diagonal),
        std::cmp::Ordering::Greater => None,
    };
    if is(&by_rank) {
        return "the mask was chosen by rank (src against r), as in ex 13.2: in the zig-zag \
                layout each rank holds an early and a late chunk, so compare the chunks' places \
                in the sequence, zigzag_chunks(src, p)[b] against zigzag_chunks(r, p)[a]"
            .into();
    }
    format!(
        "not the causal attention over any rule of whole chunks: is the part held at step s \
         rank (r - s) mod {p}'s (sent to r + 1, received from r - 1), its chunks \
         zigzag_chunks(src, p), and are chunk r's rows first in the result, then chunk \
         2p - 1 - r's?"
    )
}

/// A zig-zag backward to check: ex 13.7's, or a planted mistake.
pub type ZigZagBackward =
    fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor, &Partial, &Tensor) -> Grads;

/// Ex 13.7's check: at every rank count of `world`, a causal sequence of 240 tokens (2
/// sequences, 2 heads, head_dim 8, two seeds) in the zig-zag layout, the forward's rows
/// from one process: this rank's dQ, dK, dV (its two chunks) against autograd's, within
/// 1e-10. The ranks agree after each case.
pub fn check_zigzag_backward(
    world: &SimpleCommunicator,
    backward: ZigZagBackward,
) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [71, 72] {
        let (q, k, v) = qkv(seed, [2, 2, SEQ, 8], 1.0);
        let dout = qkv(seed + 100, [2, 2, SEQ, 8], 1.0).0;
        let mine = |x: &Tensor| zigzag_of(x, r, p);
        let whole = attend_block(&q, &k, &v, Mask::Diagonal);
        let fwd = Partial {
            out: mine(&whole.out),
            lse: mine(&whole.lse),
        };
        let got = backward(world, &mine(&q), &mine(&k), &mine(&v), &fwd, &mine(&dout));
        let want = autograd(&q, &k, &v, &dout, true);
        let off = [(&got.dq, 0), (&got.dk, 1), (&got.dv, 2)].map(|(g, i)| far(g, &mine(&want[i])));
        let mine = match off.iter().any(|&x| x > CLOSE) {
            false => Ok(()),
            true => {
                let next = zigzag_of(&want[1], (r + 1) % p, p);
                let why = if off[0] > CLOSE {
                    "dQ is wrong: block_grads of each pair of a query chunk i and a held key \
                     chunk j by ex 13.3's rule on the chunks' places (j < i Mask::Full, j == i \
                     Mask::Diagonal, j > i skipped), with rows a·c.. of q, dout, fwd.lse and D \
                     for this rank's a-th chunk"
                        .to_string()
                } else if p > 1 && far(&got.dk, &next) <= CLOSE {
                    format!(
                        "dK and dV are rank {}'s: after the last step the accumulators are one \
                         hop from home; send them once more to r + 1, their owner",
                        (r + 1) % p
                    )
                } else {
                    "dK, dV are wrong while dQ is right: add each pair's dk and dv to rows b·c.. \
                     of the held part's accumulators (its b-th chunk), which travel with the \
                     part and come home at the end"
                        .to_string()
                };
                Err(format!(
                    "causal attention's backward in the zig-zag layout, {p} rank(s), seed \
                     {seed}: rank {r}'s dQ off by {:.1e}, dK by {:.1e}, dV by {:.1e} (want \
                     1e-10, against autograd): {why}",
                    off[0], off[1], off[2]
                ))
            }
        };
        agree(world, mine)?;
    }
    Ok(())
}
