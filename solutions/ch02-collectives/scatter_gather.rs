//! Chapter 2 exercises 2.4 and 2.5: solutions.

use crate::displacements;
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: scatterv
/// Scatter: rank r gets `counts[r]` items of the root's `all`, blocks in rank order.
pub fn scatterv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    all: Option<&[T]>,
    counts: &[usize],
) -> Vec<T> {
    let rank = world.rank();
    let starts = displacements(counts);
    let block = |r: usize| starts[r]..starts[r] + counts[r];
    if rank == root {
        let all = all.expect("the root must pass Some(data)");
        assert_eq!(
            all.len(),
            counts.iter().sum::<usize>(),
            "data and counts disagree"
        );
        for r in (0..world.size()).filter(|&r| r != root) {
            world.process_at_rank(r).send(&all[block(r as usize)]);
        }
        all[block(rank as usize)].to_vec()
    } else {
        let mut mine = vec![T::default(); counts[rank as usize]];
        world.process_at_rank(root).receive_into(&mut mine[..]);
        mine
    }
}
// ANCHOR_END: scatterv

// ANCHOR: gatherv
/// Gather: the root gets every rank's block in rank order.
pub fn gatherv<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    root: i32,
    mine: &[T],
    counts: &[usize],
) -> Option<Vec<T>> {
    let rank = world.rank();
    assert_eq!(
        mine.len(),
        counts[rank as usize],
        "my block and my count disagree"
    );
    if rank != root {
        world.process_at_rank(root).send(mine);
        return None;
    }
    let starts = displacements(counts);
    let mut all = vec![T::default(); counts.iter().sum()];
    for r in 0..world.size() as usize {
        let place = &mut all[starts[r]..starts[r] + counts[r]];
        if r == root as usize {
            place.copy_from_slice(mine);
        } else {
            world.process_at_rank(r as i32).receive_into(place);
        }
    }
    Some(all)
}
// ANCHOR_END: gatherv
