//! Chapter 2 exercises 2.3 and 2.9: solutions.

use crate::ops::{Elem, Op};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: reduce_binomial
/// Reduce along a binomial tree towards rank 0, then forward to `root`.
pub fn reduce_binomial<T: Elem>(
    world: &SimpleCommunicator,
    root: i32,
    xs: &[T],
    op: Op,
) -> Option<Vec<T>> {
    let (rank, size) = (world.rank(), world.size());
    let mut acc = xs.to_vec(); // x_rank ∘ ... ∘ x_{rank + mask - 1}
    let mut theirs = vec![T::default(); xs.len()];
    let mut mask = 1;
    while mask < size {
        if rank & mask != 0 {
            world.process_at_rank(rank - mask).send(&acc[..]);
            break;
        }
        if rank + mask < size {
            world
                .process_at_rank(rank + mask)
                .receive_into(&mut theirs[..]);
            op.fold_right_into(&mut acc, &theirs); // higher ranks on the right
        }
        mask <<= 1;
    }
    // Rank 0 holds the result; the root may be another rank.
    if root != 0 && rank == 0 {
        world.process_at_rank(root).send(&acc[..]);
    }
    if root != 0 && rank == root {
        world.process_at_rank(0).receive_into(&mut acc[..]);
    }
    (rank == root).then_some(acc)
}
// ANCHOR_END: reduce_binomial

// ANCHOR: scan_inclusive
/// Inclusive scan by recursive doubling (Hillis-Steele): ceil(log2 p) rounds.
pub fn scan_inclusive<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let (rank, size) = (world.rank(), world.size());
    let mut acc = xs.to_vec();
    let mut theirs = vec![T::default(); xs.len()];
    let mut d = 1;
    while d < size {
        let (up, down) = (rank + d < size, rank - d >= 0);
        match (up, down) {
            (true, true) => {
                let (dest, src) = (
                    world.process_at_rank(rank + d),
                    world.process_at_rank(rank - d),
                );
                send_receive_into(&acc[..], &dest, &mut theirs[..], &src);
            }
            (true, false) => world.process_at_rank(rank + d).send(&acc[..]),
            (false, true) => {
                world
                    .process_at_rank(rank - d)
                    .receive_into(&mut theirs[..]);
            }
            (false, false) => {}
        }
        if down {
            op.fold_left_into(&theirs, &mut acc); // lower ranks on the left
        }
        d <<= 1;
    }
    acc
}
// ANCHOR_END: scan_inclusive
