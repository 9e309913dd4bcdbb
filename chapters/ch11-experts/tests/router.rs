//! Checks of exercise 11.1 (the router: top-k, gate weights, capacity, drops), pure, no
//! MPI: worked cases, then proptest-generated T, E, k and capacity factors against a
//! router written another way and an independent count of the drops. Run:
//! `make check CH=11` or `cargo test -p ch11-experts --features solution --test main router::`.

use crate::common::{check_capacity, check_route, Case};
use ch11::config::MoeConfig;
use ch11::router::{capacity, route};
use proptest::prelude::*;

fn case(tokens: usize, experts: usize, k: usize, quarters: u32, seed: u64) -> Case {
    Case {
        tokens,
        experts,
        k,
        quarters,
        hidden: 1,
        seed,
    }
}

#[test]
fn ex11_1_the_capacity_rounds_up() {
    // 10 tokens, 4 experts, k = 1, factor 1: an even share is 2.5, so C = 3.
    check_capacity(capacity, &case(10, 4, 1, 4, 0)).unwrap();
    // k = 2, factor 1.25: 10·2·1.25 / 4 = 6.25, C = 7; and 0 tokens: C = 0.
    check_capacity(capacity, &case(10, 4, 2, 5, 0)).unwrap();
    check_capacity(capacity, &case(0, 3, 1, 4, 0)).unwrap();
}

#[test]
fn ex11_1_the_worked_example_of_the_page() {
    // 4 tokens, 2 experts, k = 1, factor 1: C = 2; three tokens want expert 0.
    let cfg = MoeConfig::new(2, 1, 1.0).unwrap();
    let r = route(&cfg, &[2.0, 0.0, 1.0, 1.0, 3.0, 1.0, 0.0, 2.0]).unwrap();
    let experts: Vec<usize> = r.choices.iter().map(|c| c.expert).collect();
    let kept: Vec<bool> = r.choices.iter().map(|c| c.kept).collect();
    assert_eq!(
        (experts, kept),
        (vec![0, 0, 0, 1], vec![true, true, false, true])
    );
    assert_eq!(
        (r.capacity, r.load.clone(), r.dropped.clone()),
        (2, vec![2, 1], vec![1, 0])
    );
    // Token 1's logits tie: expert 0 wins, with probability 1/2.
    assert_eq!(r.choices[1].gate, 0.5);
    // k = 2: the two gates are renormalised, they sum to 1.
    let r2 = route(&MoeConfig::new(3, 2, 2.0).unwrap(), &[1.0, 3.0, 2.0]).unwrap();
    let g = (r2.choices[0].gate, r2.choices[1].gate);
    assert!(
        (g.0 + g.1 - 1.0).abs() < 1e-6 && r2.choices[0].expert == 1,
        "{r2:?}"
    );
    check_route(route, &case(12, 3, 2, 3, 7)).unwrap();
}

#[test]
fn ex11_1_bad_settings_are_refused_in_one_line() {
    let bad = [
        (2, 0, 1.0, "k = 0"),
        (2, 3, 1.0, "k = 3"),
        (1, 2, 1.0, "k = 2 with 1 expert"),
        (0, 1, 1.0, "0 experts"),
        (4, 1, 0.0, "capacity factor 0"),
        (4, 1, f64::NAN, "capacity factor NaN"),
    ];
    for (experts, k, capacity_factor, says) in bad {
        let cfg = MoeConfig {
            experts,
            k,
            capacity_factor,
        };
        let err = route(&cfg, &[]).expect_err(says);
        assert!(err.starts_with(says) && !err.contains('\n'), "{err}");
    }
    let err = route(&MoeConfig::new(3, 1, 1.0).unwrap(), &[0.0; 7]).unwrap_err();
    assert_eq!(err, "7 logits do not split into rows of 3 experts");
    // No tokens is fine: nothing routed, nothing dropped.
    let r = route(&MoeConfig::new(3, 2, 1.0).unwrap(), &[]).unwrap();
    assert_eq!(
        (r.tokens, r.capacity, r.load, r.dropped),
        (0, 0, vec![0; 3], vec![0; 3])
    );
}

proptest! {
    // A failing case is printed with its inputs, not saved to a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex11_1_any_routing_keeps_the_first_c_choices_of_each_expert(
        tokens in 0usize..60,
        experts in 1usize..10,
        k in 1usize..=2,
        quarters in 1u32..=12,
        seed in any::<u64>(),
    ) {
        let c = case(tokens, experts, k.min(experts), quarters, seed);
        prop_assert_eq!(check_capacity(capacity, &c), Ok(()));
        prop_assert_eq!(check_route(route, &c), Ok(()));
    }
}
