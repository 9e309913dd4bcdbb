//! Given: resharding's index arithmetic. A checkpoint saved by N ranks holds, for saved
//! rank q, the real elements of its shard, `q*S..min((q+1)*S, P)` of the flat buffer
//! (S = ceil(P/N), the padding stripped). A rank of a new layout at M ranks (shard length
//! S' = ceil(P/M)) builds its shard from the saved slices that overlap its own real
//! elements, and fills the rest (its padding) with zeros.
//!
//! Run its tests: `cargo test -p ch08-sharded --lib reshard`.

use crate::shards::Layout;
use std::ops::Range;

/// One copy of a reshard: elements `src` of saved rank `from`'s slice (numbered from the
/// start of that slice) go to elements `dst` of the new shard (numbered from its start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copy {
    pub from: usize,
    pub src: Range<usize>,
    pub dst: Range<usize>,
}

/// The real elements of the flat buffer that saved rank `q` of `saved_ranks` holds, for
/// `params` parameters: its shard without the padding (empty if all padding).
pub fn saved_slice(params: usize, saved_ranks: usize, q: usize) -> Range<usize> {
    let s = params.div_ceil(saved_ranks);
    (q * s).min(params)..((q + 1) * s).min(params)
}

// ANCHOR: sources
/// The copies that build `new`'s shard from a checkpoint of `params` parameters saved by
/// `saved_ranks` ranks, in flat order: together their `dst` cover `new.real()` (shifted to
/// the shard's start) once, with no gap; what they do not cover is padding.
pub fn sources(params: usize, saved_ranks: usize, new: &Layout) -> Vec<Copy> {
    let want = new.real();
    (0..saved_ranks)
        .filter_map(|q| {
            let have = saved_slice(params, saved_ranks, q);
            let (a, b) = (have.start.max(want.start), have.end.min(want.end));
            (a < b).then(|| Copy {
                from: q,
                src: a - have.start..b - have.start,
                dst: a - new.mine.start..b - new.mine.start,
            })
        })
        .collect()
}
// ANCHOR_END: sources

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(p: usize, m: usize, r: usize) -> Layout {
        let s = p.div_ceil(m);
        Layout {
            params: p,
            ranks: m,
            rank: r,
            shard: s,
            padded: s * m,
            mine: r * s..(r + 1) * s,
        }
    }

    #[test]
    fn every_new_shard_is_rebuilt_from_the_saved_slices() {
        // Element i of the flat buffer holds the value i: rebuilding must put i at i.
        for p in [1, 7, 10, 26, 101] {
            for n in 1..=8.min(p) {
                let saved: Vec<Vec<usize>> =
                    (0..n).map(|q| saved_slice(p, n, q).collect()).collect();
                for m in 1..=8.min(p) {
                    for r in 0..m {
                        let new = layout(p, m, r);
                        let mut shard = vec![usize::MAX; new.shard];
                        for c in sources(p, n, &new) {
                            shard[c.dst.clone()].copy_from_slice(&saved[c.from][c.src.clone()]);
                        }
                        let want: Vec<usize> = new
                            .mine
                            .clone()
                            .map(|i| if i < p { i } else { usize::MAX })
                            .collect();
                        assert_eq!(shard, want, "P = {p}, saved at {n}, rank {r} of {m}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_shard_of_padding_needs_no_copy() {
        // P = 10 at M = 4: S' = 3, rank 3 owns 9..12, one real element (9) and 2 padding.
        let c = sources(10, 3, &layout(10, 4, 3));
        assert_eq!(
            c,
            [Copy {
                from: 2,
                src: 1..2,
                dst: 0..1
            }]
        );
        // P = 5 at M = 4: S' = 2, rank 3 owns 6..8, all padding.
        assert!(sources(5, 2, &layout(5, 4, 3)).is_empty());
    }
}
