//! Splitting `n` items over `parts` owners in contiguous blocks, as evenly as possible.
//!
//! [`block_range`] is the answer to exercise 0.1: chapter 0 asks you to write it, and
//! every chapter after it uses this one: chapter 2's varcount collectives, chapter 3's
//! ring chunks (`ch03::chunk_range`), chapter 4's rows and columns of a process grid.

use std::ops::Range;

// ANCHOR: block_range
/// Block `i` of `0..n` cut into `parts` blocks in order: the first `n % parts` blocks get
/// one item more. 10 over 4 gives `0..3, 3..6, 6..8, 8..10`; 2 over 4 gives `0..1, 1..2,
/// 2..2, 2..2` (blocks may be empty; all `parts` exist). Blocks are disjoint and cover
/// `0..n`.
pub fn block_range(n: usize, parts: usize, i: usize) -> Range<usize> {
    let (base, extra) = (n / parts, n % parts);
    let start = i * base + i.min(extra);
    start..start + base + usize::from(i < extra)
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
        let tenths: Vec<_> = (0..4).map(|i| block_range(10, 4, i)).collect();
        assert_eq!(tenths, [0..3, 3..6, 6..8, 8..10]);
        assert_eq!(displacements(&[3, 0, 2]), [0, 3, 3]);
    }
}
