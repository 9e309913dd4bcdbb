//! Checks of exercises 6.4 and 6.5 (gradient sync): p = 1, 2, 3, 4 ranks with batch B/p
//! each must train like one process with batch B (tests/common: `equivalence`).
//!
//! Run: `make check CH=06` (your code) or `cargo test -p ch06-data-parallel --features
//! solution --test main grad_sync::`. The parameters are made identical by a reference
//! broadcast in the setup, not by your ex 6.2.

use crate::common;

use crate::common::equivalence;
use ch06::grad_sync::{allreduce_bucketed, allreduce_per_tensor, plan_buckets};
use ch06::model::ModelKind;
use proptest::prelude::*;
use toolkit::mpi_test;

const RANKS: &[u32] = &[1, 2, 3, 4];

mpi_test! {
    fn ex6_4_per_tensor_sync_trains_like_one_process(world at RANKS) {
        for kind in [ModelKind::Mlp, ModelKind::Cnn] {
            equivalence(world, kind, &mut |r, g| allreduce_per_tensor(r, g))?;
        }
        Ok(())
    }
}

mpi_test! {
    fn ex6_5_bucketed_sync_trains_like_one_process(world at RANKS) {
        // Caps from "every tensor alone" (1 byte) to "everything in one bucket".
        for (kind, cap) in [
            (ModelKind::Cnn, 1),
            (ModelKind::Cnn, 20_000),
            (ModelKind::Mlp, 1 << 30),
        ] {
            let lens: Vec<usize> = common::net(kind, 0)
                .params
                .iter()
                .map(|p| p.numel())
                .collect();
            let buckets = plan_buckets(&lens, cap);
            let mut buf = vec![];
            equivalence(world, kind, &mut |r, g| {
                allreduce_bucketed(r, g, &buckets, &mut buf)
            })?;
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn ex6_5_buckets_cover_in_order_within_the_cap(
        lens in prop::collection::vec(0usize..300, 0..40),
        cap in 1usize..2000,
    ) {
        let buckets = plan_buckets(&lens, cap);
        let mut next = 0;
        for b in &buckets {
            prop_assert_eq!(b.start, next, "buckets {:?} leave a gap or overlap", buckets);
            prop_assert!(b.end > b.start, "an empty bucket in {:?}", buckets);
            let bytes: usize = lens[b.clone()].iter().sum::<usize>() * 4;
            prop_assert!(bytes <= cap || b.len() == 1,
                "bucket {:?} holds {} bytes > cap {} with more than one tensor", b, bytes, cap);
            next = b.end;
        }
        prop_assert_eq!(next, lens.len(), "buckets {:?} do not cover all {} tensors", buckets, lens.len());
        // Greedy: a bucket and the next tensor together would overflow the cap.
        for w in buckets.windows(2) {
            let bytes: usize = lens[w[0].start..=w[1].start].iter().sum::<usize>() * 4;
            prop_assert!(bytes > cap, "buckets {:?} and {:?} could have been one", w[0], w[1]);
        }
    }
}
