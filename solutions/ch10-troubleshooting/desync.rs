//! Chapter 10 exercise 10.6: solution.

pub use crate::fingerprint::{CallKind, Fingerprint, Mismatch, WORDS};
use mpi::traits::*;

// ANCHOR: odd_ranks
/// The ranks whose fingerprint differs from the one most ranks have; `None` if all agree.
pub fn odd_ranks(all: &[Fingerprint]) -> Option<Mismatch> {
    // Each distinct fingerprint with its count, in the order of the lowest rank that has it.
    let mut counts: Vec<(Fingerprint, usize)> = vec![];
    for print in all {
        match counts.iter_mut().find(|c| c.0 == *print) {
            Some(c) => c.1 += 1,
            None => counts.push((*print, 1)),
        }
    }
    if counts.len() <= 1 {
        return None;
    }
    // `max_by_key` keeps the last of equal maxima: reversed, that is the lowest rank's.
    let expected = counts.iter().rev().max_by_key(|c| c.1).unwrap().0;
    let (agree, odd): (Vec<_>, Vec<_>) = all
        .iter()
        .copied()
        .enumerate()
        .partition(|(_, p)| *p == expected);
    Some(Mismatch {
        expected,
        agree: agree.into_iter().map(|(r, _)| r).collect(),
        odd,
    })
}
// ANCHOR_END: odd_ranks

// ANCHOR: check_collective
/// Every rank's fingerprint on every rank (one allgather), compared by [`odd_ranks`].
pub fn check_collective<C: Communicator>(comm: &C, mine: &Fingerprint) -> Result<(), Mismatch> {
    let mut words = vec![0u64; comm.size() as usize * WORDS];
    comm.all_gather_into(&mine.to_words()[..], &mut words[..]);
    let all: Vec<Fingerprint> = words
        .chunks_exact(WORDS)
        .map(Fingerprint::from_words)
        .collect();
    match odd_ranks(&all) {
        None => Ok(()),
        Some(mismatch) => Err(mismatch),
    }
}
// ANCHOR_END: check_collective
