//! Checks of ex 5.7 (the staging cost model), without MPI: a worked example done by
//! hand, one chunk is whole-buffer staging, predictions grow with the bytes, and the best
//! chunk is a candidate no slower than any other.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use ch05::links::{assumed_gpu_node, chunk_candidates, Links};
use ch05::staging_model::{best_chunk, pipelined, whole};
use proptest::prelude::*;

/// Links where a copy of x bytes takes x seconds and, at 2 ranks, so does an allreduce.
fn unit() -> Links {
    Links {
        alpha: 0.0,
        beta: 1.0,
        gamma: 0.0,
        copy_alpha: 0.0,
        copy_beta: 1.0,
    }
}

#[test]
fn ex5_7_worked_example() {
    // 4 bytes, chunks of 1: copy 0 (1 s); three times [allreduce k || copy k+1] (1 s) and
    // copy back k (1 s); allreduce 3 (1 s), copy back 3 (1 s): 9 s. Whole: 4 + 4 + 4 = 12.
    let m = unit();
    assert_eq!(
        whole(&m, 2, 4),
        12.0,
        "whole: copy 4 + allreduce 4 + copy 4"
    );
    assert_eq!(pipelined(&m, 2, 4, 1), 9.0, "4 chunks of 1 byte");
    assert_eq!(
        pipelined(&m, 2, 4, 3),
        11.0,
        "chunks of 3 and 1: copy 3, [allreduce 3 || copy 1], back 3, allreduce 1, back 1"
    );
    assert_eq!(pipelined(&m, 2, 0, 3), 0.0, "no bytes cost nothing");
    assert_eq!(
        whole(&m, 1, 4),
        8.0,
        "one rank: no allreduce, the two copies remain"
    );
}

fn links() -> impl Strategy<Value = Links> {
    (
        -7.0..-4.0f64,
        8.0..11.0f64,
        9.0..11.0f64,
        -6.0..-4.0f64,
        9.0..11.0f64,
    )
        .prop_map(|(a, b, g, ca, cb)| Links {
            alpha: 10f64.powf(a),
            beta: 10f64.powf(b),
            gamma: 1.0 / 10f64.powf(g),
            copy_alpha: 10f64.powf(ca),
            copy_beta: 10f64.powf(cb),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex5_7_one_chunk_is_whole_staging(m in links(), p in 1usize..=64, bytes in 0usize..1 << 30, extra in 0usize..1000) {
        prop_assert_eq!(pipelined(&m, p, bytes, bytes + extra), whole(&m, p, bytes));
        prop_assert_eq!(whole(&m, p, bytes), m.copy(bytes as f64) + m.allreduce(p, bytes as f64) + m.copy(bytes as f64));
    }

    #[test]
    fn ex5_7_predictions_grow_with_the_bytes(m in links(), p in 1usize..=64, bytes in 1usize..1 << 28, more in 1usize..1 << 20, chunk in 1usize..1 << 22) {
        prop_assert!(whole(&m, p, bytes) <= whole(&m, p, bytes + more));
        let (a, b) = (pipelined(&m, p, bytes, chunk), pipelined(&m, p, bytes + more, chunk));
        prop_assert!(a <= b * (1.0 + 1e-12), "{} bytes: {:e} s, {} bytes: {:e} s", bytes, a, bytes + more, b);
    }

    #[test]
    fn ex5_7_pipeline_bounds(m in links(), p in 2usize..=64, bytes in 1usize..1 << 28, chunk in 1usize..1 << 22) {
        // Never faster than its allreduces alone, nor than one copy of everything.
        let t = pipelined(&m, p, bytes, chunk);
        let k = bytes.div_ceil(chunk.min(bytes));
        let c = chunk.min(bytes) as f64;
        let r = bytes as f64 - (k - 1) as f64 * c;
        let reductions = (k - 1) as f64 * m.allreduce(p, c) + m.allreduce(p, r);
        prop_assert!(t >= reductions * (1.0 - 1e-12), "{:e} < allreduces alone {:e}", t, reductions);
        prop_assert!(t >= m.copy(bytes as f64) * (1.0 - 1e-12));
    }

    #[test]
    fn ex5_7_best_chunk_is_the_fastest_candidate(m in links(), p in 1usize..=64, bytes in 0usize..1 << 28) {
        let (c, t) = best_chunk(&m, p, bytes);
        let candidates = chunk_candidates(bytes);
        prop_assert!(candidates.contains(&c), "{} is not a candidate for {} bytes", c, bytes);
        prop_assert_eq!(t, pipelined(&m, p, bytes, c));
        for other in candidates {
            prop_assert!(t <= pipelined(&m, p, bytes, other), "chunk {} is faster than {}", other, c);
        }
        prop_assert!(t <= whole(&m, p, bytes));
    }
}

#[test]
fn ex5_7_small_buffers_gain_nothing_large_ones_do() {
    let m = assumed_gpu_node(true);
    let (c, t) = best_chunk(&m, 8, 4 << 10);
    assert_eq!((c, t), (4 << 10, whole(&m, 8, 4 << 10)), "4 KiB: one chunk");
    let bytes = 256 << 20;
    let (c, t) = best_chunk(&m, 8, bytes);
    assert!(
        c < bytes && t < 0.9 * whole(&m, 8, bytes),
        "256 MiB: chunk {c}, {t:e} s vs whole {:e} s",
        whole(&m, 8, bytes)
    );
}
