//! Checks of exercise 13.1 (two partial attentions merged by their log-sum-exp), in one
//! process: the keys cut at random into 2 to 4 parts, merged in either order, against the
//! attention over all keys, at ordinary scores and at scores where `exp` overflows; and a
//! part that saw no key. Run: `make check CH=13` or `cargo test -p ch13-context-parallel
//! --features solution --test main merge::`.

use crate::common::check_merge;
use ch13::merge::merge;

#[test]
fn ex13_1_merged_parts_equal_the_whole() -> Result<(), String> {
    check_merge(merge)
}
