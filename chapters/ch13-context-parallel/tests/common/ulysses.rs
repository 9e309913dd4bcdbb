//! Ex 13.4's check, shared with its planted mistakes: Ulysses attention against one
//! process's attention over the whole sequence, each rank's rows for every head; a wrong
//! answer compared with what the classic slips give.

use super::{far, qkv, EXACT};
use ch13::blocks::block_of;
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
