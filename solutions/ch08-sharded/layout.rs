//! Chapter 8 exercise 8.1: the shard layout of a flat buffer (solution).

use crate::shards::Piece;
use std::ops::Range;

// ANCHOR: shard_len
/// Elements per shard: `params / ranks` rounded up.
pub fn shard_len(params: usize, ranks: usize) -> usize {
    params.div_ceil(ranks)
}
// ANCHOR_END: shard_len

// ANCHOR: shard_range
/// The elements of the padded flat buffer that `rank` owns: block `rank`.
pub fn shard_range(params: usize, ranks: usize, rank: usize) -> Range<usize> {
    let s = shard_len(params, ranks);
    rank * s..(rank + 1) * s
}
// ANCHOR_END: shard_range

// ANCHOR: pieces
/// The parameter tensors that `range` cuts through, with the part of each inside it.
pub fn pieces(lens: &[usize], range: Range<usize>) -> Vec<Piece> {
    let mut out = vec![];
    let mut start = 0;
    for (tensor, &len) in lens.iter().enumerate() {
        let end = start + len;
        let (lo, hi) = (start.max(range.start), end.min(range.end));
        if lo < hi {
            out.push(Piece {
                tensor,
                within: lo - start..hi - start,
            });
        }
        start = end;
    }
    out
}
// ANCHOR_END: pieces
