//! Checks of exercise 8.1 (the shard layout): every P from 1 to 60 over every N <= P up to
//! 9, chapter 6's MLP over 1..8 ranks, and the tensors a shard cuts against a count
//! element by element.
//!
//! Run: `make check CH=08` (your code) or `cargo test -p ch08-sharded --features solution
//! --test main layout::`.

use crate::common;

use ch08::layout::{pieces, shard_len, shard_range};
use ch08::shards::Piece;

#[test]
fn ex8_1_shards_are_equal_blocks_in_rank_order() {
    let mut cases: Vec<(usize, usize)> = (1..=60)
        .flat_map(|p| (1..=p.min(9)).map(move |n| (p, n)))
        .collect();
    cases.extend((1..=8).map(|n| (26122, n))); // chapter 6's MLP
    for (p, n) in cases {
        if let Err(why) = common::check_layout(p, n, shard_len, shard_range) {
            panic!("{why}");
        }
    }
}

/// The pieces, element by element: the tensor of each element of `range` below the
/// total, grouped into runs.
fn count_pieces(lens: &[usize], range: std::ops::Range<usize>) -> Vec<Piece> {
    let mut owner = vec![];
    for (t, &len) in lens.iter().enumerate() {
        owner.extend((0..len).map(|k| (t, k)));
    }
    let mut out: Vec<Piece> = vec![];
    for &(t, k) in owner.iter().take(range.end).skip(range.start) {
        match out.last_mut() {
            Some(last) if last.tensor == t => last.within.end = k + 1,
            _ => out.push(Piece {
                tensor: t,
                within: k..k + 1,
            }),
        }
    }
    out
}

#[test]
fn ex8_1_pieces_name_the_tensors_a_shard_cuts() {
    let layouts: [&[usize]; 5] = [
        &[10],
        &[3, 0, 4, 5],
        &[1, 1, 1],
        &[0, 7, 0],
        &[6, 2, 9, 1, 4],
    ];
    for lens in layouts {
        let total: usize = lens.iter().sum();
        for start in 0..=total + 2 {
            for end in start..=total + 3 {
                let want = count_pieces(lens, start..end);
                let got = pieces(lens, start..end);
                assert_eq!(
                    got, want,
                    "tensors of lengths {lens:?}, elements {start}..{end}"
                );
            }
        }
    }
}
