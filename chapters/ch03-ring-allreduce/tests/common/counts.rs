//! A check that says which rank's input went missing or counted twice, shared by the
//! tests of ex 3.6 and 3.7 and their planted mistakes: each rank's input is `16^rank` in every element, so
//! digit `r` (base 16) of a sum counts how often rank `r`'s input got into that element.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::lockstep::agree;

/// What a wrong count in ex 3.6 most likely means.
pub const HALVING_CAUSES: (&str, &str) = (
    "a block lacks some ranks' inputs: in each halving round a rank keeps the half its bit \
     says (me & mask == 0: the lower half) and sends the other, so that its partner keeps that \
     one; with p not a power of two, the extra ranks fold in first and a partner's new number \
     maps back to a real rank (ex 3.4)",
    "an input was reduced in twice: reduce the received half into the kept half only, and in \
     the doubling rounds copy the partner's blocks, do not reduce them",
);

/// What a wrong count in ex 3.7 most likely means.
pub const TREE_CAUSES: (&str, &str) = (
    "a segment lacks some ranks' inputs: going up, receive the segment from every child of \
     tree t and reduce it in before sending it to the parent; going down, receive it from the \
     parent before sending it to the children",
    "an input was reduced in twice: going down, the parent's segment replaces yours (a copy), \
     it is not reduced into it",
);

/// An allreduce of i64 sums to check: ex 3.6's or 3.7's, or a planted mistake.
pub type Allreduce = fn(&SimpleCommunicator, &[i64], ch03::ops::Op) -> Vec<i64>;

/// `f` at this rank count: a vector of `3p + 1` elements (blocks of unequal size), rank
/// `r`'s input `16^r` everywhere, summed: every element must count every rank's input
/// once. A wrong count is named with `missing` or `twice`, the exercise's likely causes.
pub fn each_input_once(
    world: &SimpleCommunicator,
    name: &str,
    f: Allreduce,
    (missing, twice): (&str, &str),
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let n = 3 * p + 1;
    let got = f(world, &vec![16i64.pow(rank as u32); n], ch03::ops::Op::Sum);
    let mine = if got.len() != n {
        Err(format!(
            "{name} at {p} ranks returned {} elements on rank {rank}, want {n}",
            got.len()
        ))
    } else {
        let wrong = (0..n).find_map(|i| {
            let counts: Vec<i64> = (0..p).map(|r| (got[i] >> (4 * r)) & 15).collect();
            let off = counts.iter().position(|&c| c != 1)?;
            Some((i, off, counts[off]))
        });
        match wrong {
            None => Ok(()),
            Some((i, r, c)) => Err(format!(
                "{name} at {p} ranks, each rank's input 16^rank summed: element {i} on rank \
                 {rank} counts rank {r}'s input {c} times (want once each): {}",
                if c == 0 { missing } else { twice }
            )),
        }
    };
    agree(world, mine)
}
