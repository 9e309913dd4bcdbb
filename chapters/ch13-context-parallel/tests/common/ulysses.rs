//! Ex 13.4's and ex 13.6's checks, shared with their planted mistakes: Ulysses attention
//! against one process's attention over the whole sequence, and its backward against
//! LibTorch's autograd there, each rank's rows for every head; a wrong answer compared with
//! what the classic slips give.

use super::backward::{autograd, CLOSE};
use super::{far, qkv, EXACT};
use ch13::blocks::block_of;
use ch13::grads::Grads;
use ch13::partial::full_attention;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;
use toolkit::lockstep::agree;

/// A Ulysses attention to check: ex 13.4's, or a planted mistake.
pub type Ulysses = fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor, bool) -> Tensor;

/// Ex 13.4's check: at every rank count of `world` (1, 2, 4 or 8: they divide the 8
/// heads), a sequence of 120 tokens (2 sequences, 8 heads, head_dim 8, two seeds), causal
/// and not: this rank's rows for every head against one process's attention, within 1e-12.
/// The ranks agree after each case: all fail with the first failing rank's message.
pub fn check_ulysses(world: &SimpleCommunicator, ulysses: Ulysses) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [51, 52] {
        let (q, k, v) = qkv(seed, [2, 8, 120, 8], 1.0);
        for causal in [true, false] {
            let mine = |x: &Tensor| block_of(x, r, p);
            let got = ulysses(world, &mine(&q), &mine(&k), &mine(&v), causal);
            let want = mine(&full_attention(&q, &k, &v, causal));
            let case = format!(
                "{} attention, {p} rank(s) with 8 heads, seed {seed}: rank {r}",
                if causal { "causal" } else { "full" }
            );
            let mine = if got.size() != want.size() {
                Err(format!(
                    "{case} returned shape {:?}, want {:?} (its tokens, every head): the second \
                     all-to-all hands each rank its own tokens back for all heads",
                    got.size(),
                    want.size()
                ))
            } else if far(&got, &want) > EXACT {
                Err(format!(
                    "{case}'s rows off by {:.1e} (want 1e-12): {}",
                    far(&got, &want),
                    cause(&q, &k, &v, r, p, causal, &got)
                ))
            } else {
                Ok(())
            };
            agree(world, mine)?;
        }
    }
    Ok(())
}

/// What a wrong result of rank `r` looks like.
fn cause(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    r: usize,
    p: usize,
    causal: bool,
    got: &Tensor,
) -> String {
    let mine = |x: &Tensor| block_of(x, r, p);
    if far(got, &full_attention(&mine(q), &mine(k), &mine(v), causal)) <= 1e-9 {
        return "it is the attention over this rank's own block only: the first all-to-all \
                must bring every rank's tokens for this rank's heads, the whole sequence"
            .into();
    }
    "not the attention of these tokens over the whole sequence: after the first all-to-all, \
     is the slice from rank src its tokens src·t.., placed in rank order along the sequence \
     (a permute before the reshape), and after the second, the slice from rank g this rank's \
     tokens for heads g·h..?"
        .into()
}

/// A Ulysses backward to check: ex 13.6's, or a planted mistake.
pub type UlyssesBackward =
    fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor, &Tensor, bool) -> Grads;

/// Ex 13.6's check: at every rank count of `world` (1, 2, 4 or 8), a sequence of 120 tokens
/// (2 sequences, 8 heads, head_dim 8, two seeds), causal and not: this rank's dQ, dK, dV
/// for every head against autograd's on one process, within 1e-10. The ranks agree after
/// each case.
pub fn check_ulysses_backward(
    world: &SimpleCommunicator,
    backward: UlyssesBackward,
) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [53, 54] {
        let (q, k, v) = qkv(seed, [2, 8, 120, 8], 1.0);
        let dout = qkv(seed + 100, [2, 8, 120, 8], 1.0).0;
        for causal in [true, false] {
            let mine = |x: &Tensor| block_of(x, r, p);
            let got = backward(world, &mine(&q), &mine(&k), &mine(&v), &mine(&dout), causal);
            let want = autograd(&q, &k, &v, &dout, causal).map(|g| mine(&g));
            let case = format!(
                "{} attention's backward, {p} rank(s) with 8 heads, seed {seed}: rank {r}",
                if causal { "causal" } else { "full" }
            );
            let got = [got.dq, got.dk, got.dv];
            let mine = if let Some(g) = got.iter().find(|g| g.size() != want[0].size()) {
                Err(format!(
                    "{case} returned a gradient of shape {:?}, want {:?} (its tokens, every \
                     head): dQ, dK and dV go back to their tokens' ranks by ex 13.4's second \
                     all-to-all",
                    g.size(),
                    want[0].size()
                ))
            } else {
                let off = [0, 1, 2].map(|i| far(&got[i], &want[i]));
                match off.iter().any(|&x| x > CLOSE) {
                    false => Ok(()),
                    true => Err(format!(
                        "{case}'s dQ off by {:.1e}, dK by {:.1e}, dV by {:.1e} (want 1e-10, \
                         against autograd): {}",
                        off[0],
                        off[1],
                        off[2],
                        backward_cause(&q, &k, &v, &dout, r, p, causal, &got)
                    )),
                }
            };
            agree(world, mine)?;
        }
    }
    Ok(())
}

/// What a wrong gradient of rank `r` looks like.
#[allow(clippy::too_many_arguments)]
fn backward_cause(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dout: &Tensor,
    r: usize,
    p: usize,
    causal: bool,
    got: &[Tensor; 3],
) -> String {
    let mine = |x: &Tensor| block_of(x, r, p);
    if causal && far(&got[0], &mine(&autograd(q, k, v, dout, false)[0])) <= 1e-9 {
        return "these are the gradients of attention without the causal mask: on the heads' \
                ranks the forward and block_grads use Mask::Diagonal when causal"
            .into();
    }
    let own = autograd(&mine(q), &mine(k), &mine(v), &mine(dout), causal);
    if far(&got[0], &own[0]) <= 1e-9 {
        return "it is the backward over this rank's own block only: q, k, v and dout first go \
                to the heads' ranks (ex 13.4's first all-to-all), the whole sequence"
            .into();
    }
    "not attention's gradients over the whole sequence: are q, k, v and dout exchanged by the \
     same all-to-all, the lse and output for block_grads those of the gathered heads \
     (attend_block over every token), and dQ, dK, dV sent back as ex 13.4's output is?"
        .into()
}
