//! Check of exercise 3.5: the choice between recursive doubling and the segmented ring
//! is the one with the smaller predicted time, over random machines, rank counts and
//! sizes; and on a machine like a laptop it switches from one to the other as the
//! message grows. No MPI: a plain proptest.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test main choose::`.

use ch01::model::AlphaBeta;
use ch03::choose::choose_algorithm;
use ch03::cost::{predict, Algorithm, CostModel};
use proptest::prelude::*;

fn machine() -> impl Strategy<Value = CostModel> {
    let per_byte = 1e-12..1e-9f64;
    (1e-7..1e-4f64, 1e8..1e11f64, per_byte.clone(), per_byte).prop_map(
        |(alpha, beta, gamma, fresh)| CostModel {
            link: AlphaBeta { alpha, beta },
            gamma,
            rendezvous: 3.0 * alpha,
            fresh,
        },
    )
}

#[test]
fn ex3_5_choose_algorithm() {
    // A laptop-like machine: 5 us, 5 GB/s, 0.2 ns per byte reduced. Small messages go by
    // recursive doubling, large ones by the ring.
    let laptop = CostModel {
        link: AlphaBeta {
            alpha: 5e-6,
            beta: 5e9,
        },
        gamma: 2e-10,
        rendezvous: 1e-5,
        fresh: 1e-10,
    };
    assert_eq!(
        choose_algorithm(&laptop, 4, 8),
        Algorithm::RecursiveDoubling
    );
    assert_eq!(
        choose_algorithm(&laptop, 4, 64 << 20),
        Algorithm::SegmentedRing
    );
    assert_eq!(
        choose_algorithm(&laptop, 1, 64 << 20),
        Algorithm::RecursiveDoubling
    );
    let config = ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(m in machine(), p in 1usize..=64, bytes in 0usize..=1 << 28)| {
        let doubling = predict(Algorithm::RecursiveDoubling, &m, p, bytes);
        let ring = predict(Algorithm::SegmentedRing, &m, p, bytes);
        let want = if ring < doubling {
            Algorithm::SegmentedRing
        } else {
            Algorithm::RecursiveDoubling
        };
        prop_assert_eq!(
            choose_algorithm(&m, p, bytes),
            want,
            "predicted: doubling {:e} s, segmented ring {:e} s",
            doubling,
            ring
        );
    });
}
