//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them: ex 13.1's merge without the max shift (its exponentials overflow), and ex
//! 13.2's ring that attends to its own block without the causal mask, and ex 13.3's
//! zig-zag ring that chooses the mask by rank as ex 13.2 does, or attends a chunk's own
//! keys unmasked, under mpirun at 3 ranks (`toolkit::mpi_test!`); ex 13.4's Ulysses
//! without its all-to-alls, at 2 ranks; ex 13.5's backward whose gradient accumulators
//! miss their last hop home, at 3 ranks; ex 13.6's Ulysses backward without the causal
//! mask, at 2 ranks; ex 13.5's backward used as it is for ex 13.7's zig-zag layout, at 3
//! ranks.
//!
//! Run: `cargo test -p ch13-context-parallel --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch13-context-parallel/tests/common/mod.rs"]
mod common;

use ch13::blocks::{pack, unpack, zigzag_chunks};
use ch13::grads::Grads;
use ch13::partial::{attend_block, Mask, Partial};
use common::backward::check_backward;
use common::ulysses::{check_ulysses, check_ulysses_backward};
use common::zigzag::{check_zigzag, check_zigzag_backward, ZigZag};
use common::{check_merge, check_ring};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;
use toolkit::planted::named;

// ANCHOR: no_max_shift
/// Mistake 1: ex 13.1 as the formula reads, `ln(e^lse_a + e^lse_b)`, without the shift.
fn no_max_shift(a: &Partial, b: &Partial) -> Partial {
    let lse = (a.lse.exp() + b.lse.exp()).log();
    let out =
        &a.out * (&a.lse - &lse).exp().unsqueeze(-1) + &b.out * (&b.lse - &lse).exp().unsqueeze(-1);
    Partial { out, lse }
}
// ANCHOR_END: no_max_shift

#[test]
fn a_merge_without_the_max_shift_is_named() {
    match check_merge(no_max_shift) {
        Ok(()) => panic!("the check passed a planted mistake"),
        Err(why) => {
            println!("{why}");
            assert!(
                why.contains("subtract m = max"),
                "the message changed: {why}"
            );
        }
    }
}

#[test]
fn the_solution_passes_the_same_check() {
    check_merge(ch13::merge::merge).expect("ex 13.1's solution");
}

// ANCHOR: unmasked_diagonal
/// Mistake 2: ex 13.2 attending to every block up to its own with `Mask::Full`: its own
/// block's future tokens leak in (the blocks gathered at once here; the slip is the mask).
fn unmasked_diagonal(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    causal: bool,
) -> Partial {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let buf = pack(k, v);
    let n = buf.len();
    let mut got = vec![0f64; n * p];
    world.all_gather_into(&buf[..], &mut got[..]);
    let (ks, vs): (Vec<Tensor>, Vec<Tensor>) = (0..p)
        .filter(|&src| !causal || src <= r)
        .map(|src| unpack(&got[src * n..(src + 1) * n], &k.size()))
        .unzip();
    attend_block(q, &Tensor::cat(&ks, 2), &Tensor::cat(&vs, 2), Mask::Full)
}
// ANCHOR_END: unmasked_diagonal

toolkit::mpi_test! {
    fn an_unmasked_diagonal_block_is_named(world at &[3]) {
        named(check_ring(world, unmasked_diagonal), "without the causal mask")
    }
}

/// Ex 13.3 as a learner might write it, the chunks' rule replaced by `rule(i, j, r, src)`
/// (query chunk `i`, key chunk `j` of rank `src`'s part, this rank `r`): every rank's part
/// gathered at once here; the slip is the rule.
fn zigzag_with(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    rule: fn(usize, usize, usize, usize) -> Option<Mask>,
) -> Partial {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let buf = pack(k, v);
    let n = buf.len();
    let mut got = vec![0f64; n * p];
    world.all_gather_into(&buf[..], &mut got[..]);
    let c = q.size()[2] / 2;
    let half = |x: &Tensor, h: usize| x.narrow(2, h as i64 * c, c);
    let rows = zigzag_chunks(r, p).into_iter().enumerate().map(|(a, i)| {
        let parts = (0..p).flat_map(|src| {
            let (ks, vs) = unpack(&got[src * n..(src + 1) * n], &k.size());
            let pairs = zigzag_chunks(src, p).into_iter().enumerate();
            let held: Vec<_> = pairs
                .map(|(b, j)| (j, half(&ks, b), half(&vs, b)))
                .collect();
            held.into_iter().filter_map(move |(j, kj, vj)| {
                rule(i, j, r, src).map(|mask| attend_block(&half(q, a), &kj, &vj, mask))
            })
        });
        parts
            .reduce(|x, y| ch13::merge::merge(&x, &y))
            .expect("a pair")
    });
    let (outs, lses): (Vec<Tensor>, Vec<Tensor>) = rows.map(|x| (x.out, x.lse)).unzip();
    Partial {
        out: Tensor::cat(&outs, 2),
        lse: Tensor::cat(&lses, 2),
    }
}

/// The causal rule on `a` against `b`: earlier in full, the same on the diagonal, later
/// skipped.
fn by_place(b: usize, a: usize) -> Option<Mask> {
    match b.cmp(&a) {
        std::cmp::Ordering::Less => Some(Mask::Full),
        std::cmp::Ordering::Equal => Some(Mask::Diagonal),
        std::cmp::Ordering::Greater => None,
    }
}

// ANCHOR: zigzag_mistakes
/// Mistake 3: ex 13.3 with ex 13.2's rule, the mask chosen by rank (src against r).
const RANK_RULE: ZigZag = |w, q, k, v| zigzag_with(w, q, k, v, |_, _, r, src| by_place(src, r));

/// Mistake 4: ex 13.3 attending a chunk's own keys without the causal mask.
const DIAGONAL_UNMASKED: ZigZag =
    |w, q, k, v| zigzag_with(w, q, k, v, |i, j, _, _| (j <= i).then_some(Mask::Full));
// ANCHOR_END: zigzag_mistakes

toolkit::mpi_test! {
    fn ex13_3_mistakes_are_named(world at &[3]) {
        check_zigzag(world, |w, q, k, v| zigzag_with(w, q, k, v, |i, j, _, _| by_place(j, i)))?;
        for (mistake, cause) in [
            (RANK_RULE, "chosen by rank"),
            (DIAGONAL_UNMASKED, "without the causal mask"),
        ] {
            named(check_zigzag(world, mistake), cause)?;
        }
        Ok(())
    }
}

// ANCHOR: own_block_only
/// Mistake 5: ex 13.4 without the all-to-alls: this rank's block attends to itself.
fn own_block_only(_: &SimpleCommunicator, q: &Tensor, k: &Tensor, v: &Tensor, c: bool) -> Tensor {
    ch13::partial::full_attention(q, k, v, c)
}
// ANCHOR_END: own_block_only

toolkit::mpi_test! {
    fn ex13_4_own_block_only_is_named(world at &[2]) {
        named(check_ulysses(world, own_block_only), "this rank's own block only")
    }
}

// ANCHOR: last_hop_missing
/// Mistake 6: ex 13.5 without the accumulators' last hop: rank r ends holding the dK, dV of
/// block r + 1 (made here from the solution's, passed one rank back).
fn last_hop_missing(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
    causal: bool,
) -> Grads {
    let g = ch13::backward::ring_backward(world, q, k, v, fwd, dout, causal);
    let (r, p) = (world.rank(), world.size());
    let acc = pack(&g.dk, &g.dv);
    let mut came = vec![0f64; acc.len()];
    let (to, from) = (
        world.process_at_rank((r + p - 1) % p),
        world.process_at_rank((r + 1) % p),
    );
    mpi::point_to_point::send_receive_into(&acc[..], &to, &mut came[..], &from);
    let (dk, dv) = unpack(&came, &k.size());
    Grads { dq: g.dq, dk, dv }
}
// ANCHOR_END: last_hop_missing

toolkit::mpi_test! {
    fn ex13_5_last_hop_missing_is_named(world at &[3]) {
        named(check_backward(world, last_hop_missing), "one hop from home")
    }
}

// ANCHOR: ulysses_backward_unmasked
/// Mistake 7: ex 13.6 whose backward on the heads' ranks forgets the causal mask (made
/// here from the solution, asked for the full attention's gradients).
fn ulysses_backward_unmasked(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dout: &Tensor,
    _causal: bool,
) -> Grads {
    ch13::ulysses::ulysses_backward(world, q, k, v, dout, false)
}
// ANCHOR_END: ulysses_backward_unmasked

toolkit::mpi_test! {
    fn ex13_6_backward_without_the_mask_is_named(world at &[2]) {
        named(check_ulysses_backward(world, ulysses_backward_unmasked), "without the causal mask")
    }
}

// ANCHOR: zigzag_with_ring_backward
/// Mistake 8: ex 13.7 as ex 13.5's ring backward, the mask chosen by rank over each
/// two-chunk part (an early chunk and a late one are not one block of the sequence).
fn zigzag_with_ring_backward(
    world: &SimpleCommunicator,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    fwd: &Partial,
    dout: &Tensor,
) -> Grads {
    ch13::backward::ring_backward(world, q, k, v, fwd, dout, true)
}
// ANCHOR_END: zigzag_with_ring_backward

toolkit::mpi_test! {
    fn ex13_7_ring_rule_is_named(world at &[3]) {
        named(check_zigzag_backward(world, zigzag_with_ring_backward), "chunks' places")
    }
}
