//! Checks of exercise 10.4 (a score per rank, and the stragglers): on made-up arrival
//! matrices with known late ranks (pure, no MPI), then on arrivals measured under mpirun
//! with one rank slowed by `toolkit::stragglers`. Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test main straggler::`.

use crate::common::stragglers::{arrivals, check_scores, check_stragglers};
use ch10::skew::train;
use ch10::straggler::{find_stragglers, score_ranks};
use mpi::traits::*;
use proptest::prelude::*;
use std::time::Duration;
use toolkit::stragglers::{parse, set};
use toolkit::testing::at_ranks;

const MS: f64 = 1e-3;

#[test]
fn ex10_4_one_slow_rank_among_four_is_scored_and_found() {
    let at = arrivals(4, 5, &[(2, 2.0 * MS)], 0.0, 1);
    let want = [(0.0, 0), (0.0, 0), (2.0 * MS, 5), (0.0, 0)];
    check_scores(score_ranks, &at, &want).unwrap();
    check_stragglers(score_ranks, find_stragglers, &at, 1.0 * MS, &[2]).unwrap();
    // Nothing recorded: no rank, no straggler.
    check_scores(score_ranks, &[], &[]).unwrap();
    check_stragglers(score_ranks, find_stragglers, &[], 1.0 * MS, &[]).unwrap();
}

#[test]
fn ex10_4_ties_for_last_count_for_each_and_two_ranks_share_a_median() {
    // Three ranks always together: each is last every time, none is late.
    let at = arrivals(3, 2, &[], 0.0, 1);
    check_scores(score_ranks, &at, &[(0.0, 2), (0.0, 2), (0.0, 2)]).unwrap();
    // Two ranks: the median is the mean of both, so each is 1 ms from it.
    let at = arrivals(2, 4, &[(1, 2.0 * MS)], 0.0, 1);
    check_scores(score_ranks, &at, &[(-MS, 0), (MS, 4)]).unwrap();
}

#[test]
fn ex10_4_the_straggler_is_measured_from_the_median_not_the_mean() {
    // 4 ranks, rank 1 2 ms late: the mean arrival is 0.5 ms, the median 0.
    let at = arrivals(4, 6, &[(1, 2.0 * MS)], 0.0, 1);
    check_stragglers(score_ranks, find_stragglers, &at, 1.6 * MS, &[1]).unwrap();
    // Rank 0 always 1 ms early: it is not late, and the others are not late either.
    let at = arrivals(4, 6, &[(1, MS), (2, MS), (3, MS)], 0.0, 1);
    check_stragglers(score_ranks, find_stragglers, &at, 0.5 * MS, &[]).unwrap();
    // Two stragglers, latest first.
    let at = arrivals(6, 6, &[(4, 2.0 * MS), (1, 5.0 * MS)], 0.1 * MS, 7);
    check_stragglers(score_ranks, find_stragglers, &at, 1.0 * MS, &[1, 4]).unwrap();
}

proptest! {
    // A failing case is printed with its inputs, not saved to a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex10_4_any_one_straggler_later_than_the_noise_is_found(
        p in 3usize..10,
        pick in any::<prop::sample::Index>(),
        delay in 1e-3f64..1e-2,
        rows in 3usize..20,
        seed in any::<u64>(),
    ) {
        let s = pick.index(p);
        let at = arrivals(p, rows, &[(s, delay)], 0.2 * MS, seed);
        prop_assert_eq!(check_stragglers(score_ranks, find_stragglers, &at, 0.5 * MS, &[s]), Ok(()));
        let late = score_ranks(&at)[s].lateness;
        prop_assert!((late - delay).abs() < 0.2 * MS, "rank {s} {delay} s late, scored {late}");
    }

    #[test]
    fn ex10_4_no_straggler_is_found_among_equals(
        p in 2usize..10,
        rows in 1usize..20,
        seed in any::<u64>(),
    ) {
        let at = arrivals(p, rows, &[], 0.2 * MS, seed);
        prop_assert_eq!(check_stragglers(score_ranks, find_stragglers, &at, 0.5 * MS, &[]), Ok(()));
    }
}

#[test]
fn ex10_4_the_slowed_rank_is_found_in_measured_arrivals() {
    at_ranks(
        "ex10_4_the_slowed_rank_is_found_in_measured_arrivals",
        &[3, 4],
        |world| {
            let slow = world.size() as usize - 1;
            set(parse(&format!("{slow}:delay=3ms")).unwrap());
            let run = train(world, 10, Duration::from_millis(1), 256);
            set(vec![]);
            let Some(m) = run.arrivals else {
                return Ok(());
            };
            let scores = score_ranks(&m.at);
            let found = find_stragglers(&scores, 1.5 * MS);
            match found.as_slice() {
                [one] if *one == slow => Ok(()),
                _ => Err(format!(
                    "rank {slow} waited 3 ms before each allreduce; found {found:?} from \
                     {scores:?}"
                )),
            }
        },
    );
}
