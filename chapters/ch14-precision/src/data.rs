//! Given: the values the sums add (gradient-like: a common mean plus noise, drawn per rank
//! from a seed with SplitMix64, then rounded to bf16 as a bf16 trainer's gradients are),
//! the exact sum to measure against, and how far a sum is from it.

use crate::encode::encode;
use crate::format::BF16;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use trainer_kit::rng::SplitMix64;

/// `n` bf16 codes for rank `rank`: `mean + N(0, 1)` each (Box-Muller on SplitMix64's
/// draws from `seed` and the rank), rounded to bf16 (ex 14.1).
pub fn gradients(seed: u64, rank: usize, n: usize, mean: f64) -> Vec<u16> {
    let mut rng = SplitMix64(seed ^ (rank as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut uniform = || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let (u, v) = (uniform(), uniform());
            let normal = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            encode(&BF16, (mean + normal) as f32)
        })
        .collect()
}

/// The exact sum over the ranks of the bf16 values `codes`, element by element (in f64:
/// a sum of up to a few thousand bf16 values of these sizes is exact in f64's 53 bits).
pub fn exact_sum(world: &SimpleCommunicator, codes: &[u16]) -> Vec<f64> {
    let mine: Vec<f64> = codes.iter().map(|&c| f64::from(BF16.decode(c))).collect();
    let mut all = vec![0f64; mine.len()];
    world.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    all
}

/// `‖got − want‖₂ / ‖want‖₂`: the relative error of a whole vector.
pub fn relative_error(got: &[f32], want: &[f64]) -> f64 {
    let (mut err, mut norm) = (0f64, 0f64);
    for (g, w) in got.iter().zip(want) {
        err += (f64::from(*g) - w).powi(2);
        norm += w * w;
    }
    (err / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// The values of bf16 `codes`.
pub fn decoded(codes: &[u16]) -> Vec<f32> {
    codes.iter().map(|&c| BF16.decode(c)).collect()
}
