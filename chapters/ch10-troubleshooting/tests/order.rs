//! Checks of exercise 10.3 (a ring order that avoids the slow links) against every order
//! (pure, no MPI), at 1 to 7 ranks with random slow links. Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test main order::`.

use crate::common::{check_order, crossings};
use ch10::order::ring_order;
use proptest::prelude::*;

#[test]
fn ex10_3_the_lab_s_link_is_left_out_and_unavoidable_ones_are_counted() {
    check_order(ring_order, 8, &[(2, 3)]).unwrap();
    assert_eq!(crossings(&ring_order(8, &[(2, 3)]), &[(2, 3)]), 0);
    check_order(ring_order, 0, &[]).unwrap();
    check_order(ring_order, 1, &[]).unwrap();
    // 3 ranks: every pair is in the ring, so a slow link cannot be avoided.
    check_order(ring_order, 3, &[(0, 1)]).unwrap();
    // rank 0 slow to everyone at 4 ranks: two of its links are in any ring.
    check_order(ring_order, 4, &[(0, 1), (0, 2), (0, 3)]).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex10_3_the_order_uses_as_few_slow_links_as_any(
        p in 2usize..8,
        links in prop::collection::vec((0usize..7, 0usize..7), 0..8),
    ) {
        let slow: Vec<(usize, usize)> =
            links.into_iter().filter(|&(a, b)| a < p && b < p && a != b).collect();
        prop_assert_eq!(check_order(ring_order, p, &slow), Ok(()));
    }
}
