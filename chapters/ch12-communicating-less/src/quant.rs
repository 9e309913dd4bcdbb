//! Chapter 12 exercise 12.4 (optional): 8-bit quantisation with one scale per bucket and
//! error feedback, on one rank's vector (what it would send), then the sum over the ranks
//! of what every rank sent. Check with `make check CH=12`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: quantize
/// `xs` cut into buckets of `bucket` elements (the last may be shorter); per bucket the
/// scale `max |x| / 127` (0 for a bucket of zeros) and per element the code
/// `round(x / scale)` as an `i8` in -127..=127 (0 where the scale is 0).
/// Returns (the scales, the codes).
pub fn quantize(xs: &[f32], bucket: usize) -> (Vec<f32>, Vec<i8>) {
    // TODO(ex 12.4): per chunk of `bucket`: max-abs / 127, then round(x / scale) as i8
    todo!("ex 12.4: one scale per bucket (max |x| / 127), then round(x / scale) as i8")
}
// ANCHOR_END: quantize

// ANCHOR: dequantize
/// The values the codes stand for: `code as f32 * scale` of its bucket.
pub fn dequantize(scales: &[f32], codes: &[i8], bucket: usize) -> Vec<f32> {
    // TODO(ex 12.4): code times the scale of bucket i / bucket
    todo!("ex 12.4: every code times its bucket's scale")
}
// ANCHOR_END: dequantize

// ANCHOR: quantize_with_feedback
/// One step with error feedback: quantise `grad + residual`, set `residual` to what the
/// codes do not carry (`grad + residual − dequantised`), return the scales and codes.
pub fn quantize_with_feedback(
    residual: &mut [f32],
    grad: &[f32],
    bucket: usize,
) -> (Vec<f32>, Vec<i8>) {
    // TODO(ex 12.4): acc = grad + residual, quantize, residual = acc - dequantize
    todo!("ex 12.4: quantise gradient + residual, keep the rounding error as the residual")
}
// ANCHOR_END: quantize_with_feedback

// ANCHOR: quantized_sum
/// The sum over the ranks of every rank's dequantised codes, on every rank: codes do not
/// add in place (each rank's have their own scales), so every rank's scales and codes
/// are gathered (the same counts on every rank) and each rank's codes dequantised with
/// that rank's scales (buckets of `bucket`), then added in rank order.
pub fn quantized_sum(
    world: &SimpleCommunicator,
    scales: &[f32],
    codes: &[i8],
    bucket: usize,
) -> Vec<f32> {
    // TODO(ex 12.4): all_gather_into the scales and the codes; dequantize each rank's codes with its scales; add
    todo!("ex 12.4: the sum over the ranks of every rank's codes, each with its own scales")
}
// ANCHOR_END: quantized_sum
