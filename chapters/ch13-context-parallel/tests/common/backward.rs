//! Ex 13.5's check, shared with its planted mistakes: ring attention's backward pass
//! against LibTorch's autograd through one process's attention over the whole sequence,
//! each rank's dQ, dK and dV; a wrong answer compared with what the classic slips give.

use super::{far, qkv};
use ch13::blocks::block_of;
use ch13::grads::Grads;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};
use toolkit::lockstep::agree;

/// A ring backward to check: ex 13.5's, or a planted mistake.
pub type Backward =
    fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor, &Partial, &Tensor, bool) -> Grads;

/// How close to autograd (f64; the gradients sum many products).
pub const CLOSE: f64 = 1e-10;

/// Ex 13.5's check: at every rank count of `world`, a sequence of 120 tokens (2 sequences,
/// 2 heads, head_dim 8, two seeds), causal and not: this rank's dQ, dK, dV against
/// autograd's on one process, within 1e-10. The forward's output and lse come from one
/// process (the check needs ex 13.5 alone). The ranks agree after each case.
pub fn check_backward(world: &SimpleCommunicator, backward: Backward) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [61, 62] {
        let (q, k, v) = qkv(seed, [2, 2, 120, 8], 1.0);
        let dout = qkv(seed + 100, [2, 2, 120, 8], 1.0).0;
        for causal in [true, false] {
            let want = autograd(&q, &k, &v, &dout, causal);
            let mask = if causal { Mask::Diagonal } else { Mask::Full };
            let whole = attend_block(&q, &k, &v, mask);
            let mine = |x: &Tensor| block_of(x, r, p);
            let t = (120 / p) as i64;
            let fwd = Partial {
                out: mine(&whole.out),
                lse: whole.lse.narrow(2, r as i64 * t, t),
            };
            let got = backward(
                world,
                &mine(&q),
                &mine(&k),
                &mine(&v),
                &fwd,
                &mine(&dout),
                causal,
            );
            let off = [
                far(&got.dq, &mine(&want[0])),
                far(&got.dk, &mine(&want[1])),
                far(&got.dv, &mine(&want[2])),
            ];
            let mine = if off.iter().any(|&x| x > CLOSE) {
                Err(format!(
                    "{} attention, {p} rank(s), seed {seed}: rank {r}'s dQ off by {:.1e}, dK by \
                     {:.1e}, dV by {:.1e} (want 1e-10, against autograd): {}",
                    if causal { "causal" } else { "full" },
                    off[0],
                    off[1],
                    off[2],
                    cause(&want, r, p, &got, off[0] <= CLOSE)
                ))
            } else {
                Ok(())
            };
            agree(world, mine)?;
        }
    }
    Ok(())
}

/// dQ, dK, dV of `sum(attention(q, k, v) ∘ dout)` by LibTorch's autograd, one process.
pub fn autograd(q: &Tensor, k: &Tensor, v: &Tensor, dout: &Tensor, causal: bool) -> [Tensor; 3] {
    let leaf = |x: &Tensor| x.detach().set_requires_grad(true);
    let (q, k, v) = (leaf(q), leaf(k), leaf(v));
    let o = full_attention(&q, &k, &v, causal);
    (o * dout).sum(Kind::Double).backward();
    [q.grad(), k.grad(), v.grad()]
}

/// What a wrong result of rank `r` looks like; `dq_ok`: its dQ is right.
fn cause(want: &[Tensor; 3], r: usize, p: usize, got: &Grads, dq_ok: bool) -> String {
    if !dq_ok {
        return "dQ is wrong: add block_grads(..).dq of every block this rank attends to, with \
                ex 13.2's mask (Mask::Diagonal on its own block, later blocks skipped when \
                causal)"
            .into();
    }
    let next = (r + 1) % p;
    let block = |x: &Tensor, b: usize| block_of(x, b, p);
    if p > 1
        && far(&got.dk, &block(&want[1], next)) <= CLOSE
        && far(&got.dv, &block(&want[2], next)) <= CLOSE
    {
        return format!(
            "dK and dV are rank {next}'s: after the last step the accumulators are one hop from \
             home; send them once more to r + 1, their owner"
        );
    }
    "dK, dV are wrong while dQ is right: each block's two accumulators travel with the block \
     (added to at every rank that attends to it, passed on with it) and come home at the end"
        .into()
}
