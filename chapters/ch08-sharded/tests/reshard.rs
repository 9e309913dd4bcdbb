//! Checks of exercise 8.4 (resharding a checkpoint): for P in a few sizes (chapter 6's MLP
//! among them) saved at every N and loaded at every M from 1 to 8, the copies rebuild each
//! new shard element by element, and read only the saved (real) elements.
//!
//! Run: `make check CH=08` (your code) or `cargo test -p ch08-sharded --features solution
//! --test main reshard::`.

use crate::common;

use ch08::reshard::sources;
use ch08::shards::SliceCopy;

#[test]
fn ex8_4_saved_slices_rebuild_every_new_shard() {
    if let Err(why) = common::check_reshard(&[1, 7, 10, 26, 101, 26122], sources) {
        panic!("{why}");
    }
}

#[test]
fn ex8_4_a_shard_of_padding_needs_no_copy() {
    // P = 10 at M = 4: S' = 3, rank 3 owns 9..12, one real element (9) and 2 padding.
    let got = sources(10, 3, &common::reference_layout(10, 4, 3));
    let want = [SliceCopy {
        from: 2,
        src: 1..2,
        dst: 0..1,
    }];
    assert_eq!(got, want, "P = 10 saved at 3, rank 3 of 4");
    // P = 5 at M = 4: S' = 2, rank 3 owns 6..8, all padding.
    let got = sources(5, 2, &common::reference_layout(5, 4, 3));
    assert!(
        got.is_empty(),
        "P = 5 saved at 2, rank 3 of 4 owns only padding: {got:?}"
    );
}
