//! Chapter 12 exercise 12.4: solution.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: quantize
/// Max-abs over 127 per bucket, then the nearest code.
pub fn quantize(xs: &[f32], bucket: usize) -> (Vec<f32>, Vec<i8>) {
    let (mut scales, mut codes) = (vec![], Vec::with_capacity(xs.len()));
    for chunk in xs.chunks(bucket) {
        let scale = chunk.iter().fold(0f32, |m, x| m.max(x.abs())) / 127.0;
        scales.push(scale);
        codes.extend(chunk.iter().map(|&x| match scale {
            0.0 => 0,
            _ => (x / scale).round().clamp(-127.0, 127.0) as i8,
        }));
    }
    (scales, codes)
}
// ANCHOR_END: quantize

// ANCHOR: dequantize
/// Code times its bucket's scale.
pub fn dequantize(scales: &[f32], codes: &[i8], bucket: usize) -> Vec<f32> {
    codes
        .iter()
        .enumerate()
        .map(|(i, &c)| c as f32 * scales[i / bucket])
        .collect()
}
// ANCHOR_END: dequantize

// ANCHOR: quantize_with_feedback
/// Quantise the accumulated gradient; the rounding error is the next residual.
pub fn quantize_with_feedback(
    residual: &mut [f32],
    grad: &[f32],
    bucket: usize,
) -> (Vec<f32>, Vec<i8>) {
    let acc: Vec<f32> = grad
        .iter()
        .zip(residual.iter())
        .map(|(g, r)| g + r)
        .collect();
    let (scales, codes) = quantize(&acc, bucket);
    let back = dequantize(&scales, &codes, bucket);
    for ((r, a), b) in residual.iter_mut().zip(&acc).zip(&back) {
        *r = a - b;
    }
    (scales, codes)
}
// ANCHOR_END: quantize_with_feedback

// ANCHOR: quantized_sum
/// Gather every rank's scales and codes; each rank's codes with its own scales, added.
pub fn quantized_sum(
    world: &SimpleCommunicator,
    scales: &[f32],
    codes: &[i8],
    bucket: usize,
) -> Vec<f32> {
    let p = world.size() as usize;
    let (ns, nc) = (scales.len(), codes.len());
    let mut all_scales = vec![0f32; ns * p];
    let mut all_codes = vec![0i8; nc * p];
    world.all_gather_into(scales, &mut all_scales[..]);
    world.all_gather_into(codes, &mut all_codes[..]);
    let mut sum = vec![0f32; nc];
    for r in 0..p {
        let theirs = &all_scales[r * ns..(r + 1) * ns];
        let back = dequantize(theirs, &all_codes[r * nc..(r + 1) * nc], bucket);
        for (x, v) in sum.iter_mut().zip(back) {
            *x += v;
        }
    }
    sum
}
// ANCHOR_END: quantized_sum
