//! Chapter 9 exercise 9.1: which part of a layer rank r of t owns (solution).

use std::ops::Range;

// ANCHOR: even_range
/// Block `rank` of `total` things split evenly over `t` ranks, or why it cannot be.
pub fn even_range(total: usize, t: usize, rank: usize, what: &str) -> Result<Range<usize>, String> {
    if !total.is_multiple_of(t) {
        return Err(format!(
            "tensor-parallel size {t} does not divide the {total} {what}"
        ));
    }
    let per = total / t;
    Ok(rank * per..(rank + 1) * per)
}
// ANCHOR_END: even_range

// ANCHOR: vocab_range
/// The ids `rank` owns: the first `vocab % t` ranks one more than the others.
pub fn vocab_range(vocab: usize, t: usize, rank: usize) -> Range<usize> {
    let (per, extra) = (vocab / t, vocab % t);
    let start = rank * per + rank.min(extra);
    let len = per + usize::from(rank < extra);
    start..start + len
}
// ANCHOR_END: vocab_range
