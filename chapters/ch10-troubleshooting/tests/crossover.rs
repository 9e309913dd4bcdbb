//! Checks of exercise 10.2 (the ring/doubling crossover) against a brute-force search
//! over the model's two predictions (pure, no MPI). Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test main crossover::`.

use crate::common::check_crossover;
use ch10::crossover::crossover_slowdown;
use ch10::AlphaBeta;
use proptest::prelude::*;

#[test]
fn ex10_2_the_crossover_at_8_ranks_on_large_vectors_is_near_8_thirds() {
    let fast = AlphaBeta {
        alpha: 1e-6,
        beta: 1e9,
    };
    let s = crossover_slowdown(fast, 8, 1 << 30).expect("a crossover");
    assert!((s - 8.0 / 3.0).abs() < 1e-3, "got {s}");
    for (p, bytes) in [(2, 1 << 20), (4, 1 << 20), (8, 0), (8, 64), (16, 1 << 24)] {
        check_crossover(crossover_slowdown, fast, p, bytes).unwrap();
    }
    for p in [0, 1, 3, 6] {
        assert_eq!(crossover_slowdown(fast, p, 1 << 20), None, "p = {p}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex10_2_the_crossover_matches_the_brute_force_search(
        log_p in 1u32..6,
        bytes in 0usize..(64 << 20),
        alpha in 1e-7f64..1e-4,
        beta in 1e8f64..1e10,
    ) {
        let fast = AlphaBeta { alpha, beta };
        prop_assert_eq!(check_crossover(crossover_slowdown, fast, 1 << log_p, bytes), Ok(()));
    }
}
