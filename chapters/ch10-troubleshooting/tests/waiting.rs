//! Checks of exercise 10.5 (the time each rank waited for the last one) on made-up
//! arrival matrices (pure, no MPI). Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test main waiting::`.

use crate::common::stragglers::{arrivals, check_waited};
use ch10::waiting::time_waited;
use proptest::prelude::*;

const MS: f64 = 1e-3;

#[test]
fn ex10_5_each_rank_waits_for_the_last_arrival() {
    let at = vec![
        vec![0.0, 1.0 * MS, 3.0 * MS],
        vec![12.0 * MS, 10.0 * MS, 10.0 * MS],
    ];
    check_waited(time_waited, &at, &[3.0 * MS, 4.0 * MS, 2.0 * MS]).unwrap();
    check_waited(time_waited, &[], &[]).unwrap();
}

#[test]
fn ex10_5_a_straggler_costs_each_other_rank_its_delay_per_collective() {
    let at = arrivals(5, 10, &[(3, 2.0 * MS)], 0.0, 1);
    let want = [20.0 * MS, 20.0 * MS, 20.0 * MS, 0.0, 20.0 * MS];
    check_waited(time_waited, &at, &want).unwrap();
}

proptest! {
    // A failing case is printed with its inputs, not saved to a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex10_5_the_last_rank_of_every_collective_never_waits(
        p in 2usize..9,
        rows in 1usize..12,
        seed in any::<u64>(),
    ) {
        // Rank 0 is 5 ms late, more than the noise: it is last every time.
        let at = arrivals(p, rows, &[(0, 5.0 * MS)], 1.0 * MS, seed);
        let want: Vec<f64> = (0..p)
            .map(|r| at.iter().map(|row| row[0] - row[r]).sum())
            .collect();
        prop_assert_eq!(want[0], 0.0);
        prop_assert_eq!(check_waited(time_waited, &at, &want), Ok(()));
    }
}
