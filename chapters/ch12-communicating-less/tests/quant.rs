//! Checks of exercise 12.4 (8-bit quantisation with a scale per bucket and error
//! feedback), on one rank, on proptest-generated vectors: each element's rounding error
//! is at most half its bucket's scale (plus a few f32 roundings), and with the residual
//! the sum of what is sent over many steps stays within half a scale of the sum of the
//! gradients, however many steps. Then the sum over the ranks under mpirun at 1, 3 and 4
//! ranks, against every rank's dequantised codes added in one place. Run: `make check
//! CH=12` or `cargo test -p ch12-communicating-less --features solution --test main quant::`.

use crate::common::quant::check_quantized_sum;
use ch12::quant::{dequantize, quantize, quantize_with_feedback, quantized_sum};
use proptest::prelude::*;

/// Vectors of 0 to 60 elements in -100..100, buckets of 1 to 16.
fn vectors() -> impl Strategy<Value = (Vec<f32>, usize)> {
    (prop::collection::vec(-100f32..100.0, 0..60), 1usize..17)
}

proptest! {
    // A failing case is printed with its inputs, not saved to a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// |x − dequantised x| ≤ scale / 2 (+ f32 slack), one scale per bucket, codes in ±127.
    #[test]
    fn ex12_4_rounding_error_is_at_most_half_a_scale((xs, bucket) in vectors()) {
        let (scales, codes) = quantize(&xs, bucket);
        prop_assert_eq!(scales.len(), xs.len().div_ceil(bucket), "one scale per bucket");
        prop_assert!(codes.iter().all(|&c| c != i8::MIN), "a code of -128");
        let back = dequantize(&scales, &codes, bucket);
        prop_assert_eq!(back.len(), xs.len());
        for (i, (x, b)) in xs.iter().zip(&back).enumerate() {
            let scale = scales[i / bucket];
            let bound = scale / 2.0 + x.abs() * 4.0 * f32::EPSILON;
            prop_assert!((x - b).abs() <= bound,
                "element {i}: {x} came back as {b}, off by more than scale/2 = {}", scale / 2.0);
        }
    }

    /// 50 steps with feedback: |Σ sent − Σ gradients| ≤ the largest scale / 2 (+ slack).
    #[test]
    fn ex12_4_with_the_residual_the_sum_over_steps_converges((xs, bucket) in vectors()) {
        let mut residual = vec![0f32; xs.len()];
        let (mut sent, mut want) = (vec![0f64; xs.len()], vec![0f64; xs.len()]);
        let mut widest = 0f32;
        for t in 0..50 {
            let grad: Vec<f32> = xs.iter().map(|x| x * (1.0 + t as f32 / 7.0).sin()).collect();
            let (scales, codes) = quantize_with_feedback(&mut residual, &grad, bucket);
            widest = scales.iter().fold(widest, |m, &s| m.max(s));
            for (i, b) in dequantize(&scales, &codes, bucket).iter().enumerate() {
                sent[i] += *b as f64;
                want[i] += grad[i] as f64;
            }
        }
        for i in 0..xs.len() {
            let bound = widest as f64 / 2.0 + 1e-3;
            prop_assert!((sent[i] - want[i]).abs() <= bound,
                "element {i}: 50 steps sent {} for gradients summing to {}, off by more than {bound}",
                sent[i], want[i]);
        }
    }
}

toolkit::mpi_test! {
    /// Buckets that divide the length, one that does not, and one element.
    fn ex12_4_the_sum_over_the_ranks_uses_each_ranks_scales(world at &[1, 3, 4]) {
        for (len, bucket, seed) in [(32, 8, 1), (37, 5, 2), (1, 4, 3)] {
            check_quantized_sum(world, quantized_sum, len, bucket, seed)?;
        }
        Ok(())
    }
}
