//! Checks of exercise 6.3 (the distributed sampler), for every rank at once: rank_indices
//! is a pure function of the epoch's order, so one process can play all p ranks.
//!
//! Run: `make check CH=06` or `cargo test -p ch06-data-parallel --features solution
//! --test main sampler::`. A failure names the sample taken twice or never, and by which ranks.

use crate::common::check_partition;
use ch06::sampler::{rank_indices, samples_per_rank};
use ch06::shuffle::{shuffled, Remainder};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn ex6_3_each_sample_once_per_epoch(len in 1usize..200, p in 1usize..9, seed: u64, epoch in 0u64..5, pad: bool) {
        let remainder = if pad { Remainder::Pad } else { Remainder::Drop };
        let order = shuffled(len, seed, epoch);
        let n = samples_per_rank(len, p, remainder);
        let want = if pad { len.div_ceil(p) } else { len / p };
        prop_assert_eq!(n, want, "samples_per_rank({}, {}, {:?})", len, p, remainder);
        if let Err(why) = check_partition(&order, p, remainder, rank_indices) {
            return Err(TestCaseError::fail(why));
        }
    }
}

#[test]
fn ex6_3_a_dataset_not_divisible_by_the_ranks() {
    // 10 samples on 4 ranks: pad gives 3 each (2 repeats), drop gives 2 each (2 left out).
    let order: Vec<usize> = (0..10).rev().collect();
    let pad: Vec<Vec<usize>> = (0..4)
        .map(|r| rank_indices(&order, 4, r, Remainder::Pad))
        .collect();
    let want = vec![vec![9, 5, 1], vec![8, 4, 0], vec![7, 3, 9], vec![6, 2, 8]];
    assert_eq!(
        pad,
        want,
        "10 samples on 4 ranks with padding: each rank takes ceil(10 / 4) = 3 \
         (samples_per_rank rounds up), every 4th from its rank, and the 2 missing wrap to \
         the start of the order (rank 2 and 3 repeat 9 and 8); {} per rank here",
        pad.first().map_or(0, Vec::len)
    );
    let drop: Vec<Vec<usize>> = (0..4)
        .map(|r| rank_indices(&order, 4, r, Remainder::Drop))
        .collect();
    let want = vec![vec![9, 5], vec![8, 4], vec![7, 3], vec![6, 2]];
    assert_eq!(
        drop, want,
        "10 samples on 4 ranks, dropping: each rank takes floor(10 / 4) = 2 \
         (samples_per_rank rounds down), every 4th from its rank; the last 2 are left out"
    );
    assert_eq!(samples_per_rank(0, 3, Remainder::Pad), 0);
    assert!(rank_indices(&[], 3, 1, Remainder::Pad).is_empty());
}

#[test]
fn ex6_3_a_new_order_every_epoch_the_same_on_every_rank() {
    // The order comes from (seed, epoch) only: ranks agree without communicating.
    let (a, b) = (shuffled(500, 11, 3), shuffled(500, 11, 3));
    assert_eq!(a, b);
    assert_ne!(
        shuffled(500, 11, 3),
        shuffled(500, 11, 4),
        "epochs must reshuffle"
    );
    let r0: Vec<usize> = rank_indices(&a, 2, 0, Remainder::Drop);
    let r0_next = rank_indices(&shuffled(500, 11, 4), 2, 0, Remainder::Drop);
    assert_ne!(r0, r0_next, "rank 0 sees the same samples in two epochs");
}
