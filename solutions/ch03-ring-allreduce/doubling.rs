//! Chapter 3 exercise 3.4: solution.

use crate::ops::{Elem, Op};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_recursive_doubling
/// Recursive doubling over the largest power of two q <= p; the p - q extra ranks are
/// folded into their odd neighbours first and get the result back last.
pub fn allreduce_recursive_doubling<T: Elem>(
    world: &SimpleCommunicator,
    xs: &[T],
    op: Op,
) -> Vec<T> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = |r: usize| world.process_at_rank(r as i32);
    let q = 1usize << p.ilog2();
    let extra = p - q;
    let mut acc = xs.to_vec();
    let mut theirs = vec![T::default(); xs.len()];
    // fold in: even ranks below 2·extra hand their vector to the odd rank above
    let me = if rank >= 2 * extra {
        Some(rank - extra)
    } else if rank % 2 == 0 {
        at(rank + 1).send(&acc[..]);
        None
    } else {
        at(rank - 1).receive_into(&mut theirs[..]);
        op.reduce_into(&mut acc, &theirs);
        Some(rank / 2)
    };
    if let Some(me) = me {
        let mut mask = 1;
        while mask < q {
            let partner = me ^ mask;
            let real = if partner < extra {
                2 * partner + 1
            } else {
                partner + extra
            };
            // communication: whole vectors both ways with the partner
            send_receive_into(&acc[..], &at(real), &mut theirs[..], &at(real));
            op.reduce_into(&mut acc, &theirs);
            mask <<= 1;
        }
    }
    // fold out: the odd ranks give the result back
    if rank < 2 * extra {
        if rank % 2 == 1 {
            at(rank - 1).send(&acc[..]);
        } else {
            at(rank + 1).receive_into(&mut acc[..]);
        }
    }
    acc
}
// ANCHOR_END: allreduce_recursive_doubling
