//! Planted mistakes of ex 3.6 and 3.7, through the checks a learner runs (`tests/trees.rs`
//! shares them): Rabenseifner's doubling rounds that reduce what they should copy; a
//! double binary tree that runs both halves through one tree.

use super::common::counts::{each_input_once, HALVING_CAUSES, TREE_CAUSES};
use super::common::traffic::each_half_through_its_tree;
use ch03::binary_tree::double_binary_tree;
use ch03::chunk_range;
use ch03::ops::Op;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::planted::named;

// ANCHOR: doubling_reduces
/// Mistake: ex 3.6 at a power of two whose doubling rounds reduce the partner's blocks
/// into what this rank holds there (left over from the halving) instead of copying them.
fn doubling_reduces(world: &SimpleCommunicator, xs: &[i64], op: Op) -> Vec<i64> {
    let (me, q, n) = (world.rank() as usize, world.size() as usize, xs.len());
    let (mut acc, mut inbox) = (xs.to_vec(), vec![0; n]);
    let elems = |lo: usize, hi: usize| chunk_range(n, q, lo).start..chunk_range(n, q, hi - 1).end;
    let (mut lo, mut hi, mut mask) = (0, q, q / 2);
    while mask > 0 {
        let mid = lo + (hi - lo) / 2;
        let (keep, give) = if me & mask == 0 {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        let (k, g) = (elems(keep.0, keep.1), elems(give.0, give.1));
        let partner = world.process_at_rank((me ^ mask) as i32);
        send_receive_into(&acc[g], &partner, &mut inbox[..k.len()], &partner);
        op.reduce_into(&mut acc[k.clone()], &inbox[..k.len()]);
        (lo, hi, mask) = (keep.0, keep.1, mask >> 1);
    }
    let mut mask = 1;
    while mask < q {
        let (plo, phi) = if me & mask == 0 {
            (hi, hi + mask)
        } else {
            (lo - mask, lo)
        };
        let (mine, theirs) = (elems(lo, hi), elems(plo, phi));
        let partner = world.process_at_rank((me ^ mask) as i32);
        let got = &mut inbox[..theirs.len()];
        send_receive_into(&acc[mine], &partner, got, &partner);
        op.reduce_into(&mut acc[theirs], got); // the mistake: a copy is due here
        (lo, hi, mask) = (lo.min(plo), hi.max(phi), mask << 1);
    }
    acc
}
// ANCHOR_END: doubling_reduces

toolkit::mpi_test! {
    fn ex3_6_a_doubling_that_reduces_is_named(world at &[4]) {
        let got = each_input_once(world, "allreduce_rabenseifner", doubling_reduces, HALVING_CAUSES);
        named(got, "reduced in twice")
    }
}

// ANCHOR: one_tree_for_both
/// Mistake: ex 3.7 with both halves up and down tree 0 (`trees[0]` where `trees[t]` is
/// due): the sums are right, but tree 0's leaves send twice to the same parent and tree
/// 1's edges carry nothing.
fn one_tree_for_both(world: &SimpleCommunicator, xs: &[i64], op: Op) -> Vec<i64> {
    let (rank, p, n) = (world.rank() as usize, world.size() as usize, xs.len());
    let at = |r: usize| world.process_at_rank(r as i32);
    let tree = double_binary_tree(p, rank)[0].clone(); // the mistake: one tree for both
    let mut data = xs.to_vec();
    let mut inbox = vec![0; n];
    for half in [chunk_range(n, 2, 0), chunk_range(n, 2, 1)] {
        for &child in &tree.children {
            at(child).receive_into(&mut inbox[..half.len()]);
            op.reduce_into(&mut data[half.clone()], &inbox[..half.len()]);
        }
        if let Some(parent) = tree.parent {
            at(parent).send(&data[half.clone()]);
        }
    }
    for half in [chunk_range(n, 2, 0), chunk_range(n, 2, 1)] {
        if let Some(parent) = tree.parent {
            at(parent).receive_into(&mut data[half.clone()]);
        }
        for &child in &tree.children {
            at(child).send(&data[half.clone()]);
        }
    }
    data
}
// ANCHOR_END: one_tree_for_both

toolkit::mpi_test! {
    fn ex3_7_one_tree_for_both_halves_is_named(world at &[4]) {
        each_input_once(world, "allreduce_double_tree", one_tree_for_both, TREE_CAUSES)?;
        let got = each_half_through_its_tree(world, "allreduce_double_tree", one_tree_for_both);
        named(got, "through one tree")
    }
}
