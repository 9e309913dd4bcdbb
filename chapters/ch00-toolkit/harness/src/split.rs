//! Splitting `n` items over `parts` owners in contiguous blocks, as evenly as possible.
//!
//! Exercise 0.1 asks you to write this split (`chapters/ch00-toolkit/src/warmup.rs`);
//! every chapter after it uses this copy: chapter 2's varcount collectives, chapter 3's
//! ring chunks (`ch03::chunk_range`), chapter 4's rows and columns of a process grid.
//! The copy here finds the same blocks another way, by dealing the items out like cards,
//! so that it does not hand you the exercise's answer; the answer itself is kept with the
//! solutions (`solutions/ch00-toolkit/warmup.rs`).

use std::ops::Range;

// ANCHOR: block_range
/// Block `i` of `0..n` cut into `parts` blocks in order: the first `n % parts` blocks get
/// one item more. 10 over 4 gives `0..3, 3..6, 6..8, 8..10`; 2 over 4 gives `0..1, 1..2,
/// 2..2, 2..2` (blocks may be empty; all `parts` exist). Blocks are disjoint and cover
/// `0..n`.
///
/// Deal the `n` items round-robin to `parts` players: player `j` receives
/// `ceil((n - j) / parts)` of them. Block `i` holds as many items as player `i` was dealt,
/// after the blocks of players `0..i`. (`O(i)`: `parts` is a number of ranks or threads.)
pub fn block_range(n: usize, parts: usize, i: usize) -> Range<usize> {
    let dealt = |j: usize| n.saturating_sub(j).div_ceil(parts);
    let start: usize = (0..i).map(dealt).sum();
    start..start + dealt(i)
}
// ANCHOR_END: block_range

/// Where each block starts when blocks of `counts[r]` items are laid out in order:
/// `[0, c0, c0 + c1, ...]` (the displacements of a varcount collective).
pub fn displacements(counts: &[usize]) -> Vec<usize> {
    let mut next = 0;
    counts
        .iter()
        .map(|c| {
            let start = next;
            next += c;
            start
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_everything_in_order() {
        for (n, parts) in [(10, 4), (2, 4), (0, 3), (8, 4), (1, 1), (7, 8), (5, 1)] {
            let mut next = 0;
            for i in 0..parts {
                let r = block_range(n, parts, i);
                assert_eq!(r.start, next, "n {n} parts {parts} block {i}");
                assert!(r.len() == n / parts || r.len() == n / parts + 1);
                next = r.end;
            }
            assert_eq!(next, n);
        }
        for n in 0..50 {
            for parts in 1..10 {
                for i in 0..parts {
                    let want = n / parts + usize::from(i < n % parts);
                    assert_eq!(
                        block_range(n, parts, i).len(),
                        want,
                        "n {n} parts {parts} i {i}"
                    );
                }
            }
        }
        let tenths: Vec<_> = (0..4).map(|i| block_range(10, 4, i)).collect();
        assert_eq!(tenths, [0..3, 3..6, 6..8, 8..10]);
        assert_eq!(displacements(&[3, 0, 2]), [0, 3, 3]);
    }
}
