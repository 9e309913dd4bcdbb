//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them: ex 13.1's merge without the max shift (its exponentials overflow), and ex
//! 13.2's ring that attends to its own block without the causal mask, under mpirun at 3
//! ranks (`toolkit::mpi_test!`).
//!
//! Run: `cargo test -p ch13-context-parallel --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch13-context-parallel/tests/common/mod.rs"]
mod common;

use ch13::blocks::{pack, unpack};
use ch13::partial::{attend_block, Mask, Partial};
use common::{check_merge, check_ring};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

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
        match check_ring(world, unmasked_diagonal) {
            Ok(()) => Err("the check passed a planted mistake".into()),
            Err(why) if why.contains("without the causal mask") => {
                println!("{why}");
                Ok(())
            }
            Err(why) => Err(format!("the message changed: {why}")),
        }
    }
}
