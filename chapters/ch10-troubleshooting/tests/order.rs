//! Checks of exercise 10.3 (a ring order that avoids the slow links) against every order
//! (pure, no MPI), at 1 to 7 ranks with random slow links. Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test order`.

use ch10::order::ring_order;
use proptest::prelude::*;

/// How many links of the ring through `order` are slow.
fn crossings(order: &[usize], slow: &[(usize, usize)]) -> usize {
    let p = order.len();
    let is_slow = |a: usize, b: usize| {
        slow.iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    };
    (0..p)
        .filter(|&i| p > 1 && is_slow(order[i], order[(i + 1) % p]))
        .count()
}

/// The fewest crossings of any order from 0, by trying every one.
fn fewest(p: usize, slow: &[(usize, usize)]) -> usize {
    fn all(
        rest: &mut Vec<usize>,
        order: &mut Vec<usize>,
        slow: &[(usize, usize)],
        best: &mut usize,
    ) {
        if rest.is_empty() {
            *best = (*best).min(crossings(order, slow));
        }
        for i in 0..rest.len() {
            let r = rest.remove(i);
            order.push(r);
            all(rest, order, slow, best);
            order.pop();
            rest.insert(i, r);
        }
    }
    let mut best = usize::MAX;
    all(&mut (1..p).collect(), &mut vec![0], slow, &mut best);
    best
}

fn check(p: usize, slow: &[(usize, usize)]) -> Result<(), String> {
    let order = ring_order(p, slow);
    let mut sorted = order.clone();
    sorted.sort();
    if sorted != (0..p).collect::<Vec<_>>() || (p > 0 && order[0] != 0) {
        return Err(format!(
            "p={p}: {order:?} is not an order of 0..{p} starting at 0"
        ));
    }
    let (got, want) = (
        crossings(&order, slow),
        if p == 0 { 0 } else { fewest(p, slow) },
    );
    if got != want {
        return Err(format!(
            "p={p}, slow {slow:?}: the ring through {order:?} uses {got} slow links; an order \
             with {want} exists"
        ));
    }
    Ok(())
}

#[test]
fn ex10_3_the_lab_s_link_is_left_out_and_unavoidable_ones_are_counted() {
    check(8, &[(2, 3)]).unwrap();
    assert_eq!(crossings(&ring_order(8, &[(2, 3)]), &[(2, 3)]), 0);
    check(0, &[]).unwrap();
    check(1, &[]).unwrap();
    // 3 ranks: every pair is in the ring, so a slow link cannot be avoided.
    check(3, &[(0, 1)]).unwrap();
    // rank 0 slow to everyone at 4 ranks: two of its links are in any ring.
    check(4, &[(0, 1), (0, 2), (0, 3)]).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn ex10_3_the_order_uses_as_few_slow_links_as_any(
        p in 2usize..8,
        links in prop::collection::vec((0usize..7, 0usize..7), 0..8),
    ) {
        let slow: Vec<(usize, usize)> =
            links.into_iter().filter(|&(a, b)| a < p && b < p && a != b).collect();
        prop_assert_eq!(check(p, &slow), Ok(()));
    }
}
