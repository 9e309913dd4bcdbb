//! The shared check of ex 12.4's sum over the ranks, used by its test and by the planted
//! mistakes: every rank rebuilds every rank's vector, quantises it with ex 12.4's
//! `quantize`, and compares the sum under test with the dequantised vectors added up here.

use ch12::quant::{dequantize, quantize};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::compare::{abs_sums, close_sums};

/// A sum over the ranks of every rank's scales and codes (ex 12.4's `quantized_sum`).
pub type QuantSum = fn(&SimpleCommunicator, &[f32], &[i8], usize) -> Vec<f32>;

/// Rank `rank`'s vector of `len` values from `seed`, of magnitude about `1 + rank`, so
/// that the ranks' scales differ.
pub fn vector(len: usize, seed: u64, rank: usize) -> Vec<f32> {
    (0..len)
        .map(|i| {
            let k = (i as u64 * 7 + rank as u64 * 13 + seed) % 23;
            (k as f32 - 11.0) / 11.0 * (1 + rank) as f32
        })
        .collect()
}

/// The sum under test against every rank's dequantised codes added here, within the
/// bound of adding `p` terms in another order; the message names the rank, the case and
/// the first element off.
pub fn check_quantized_sum(
    world: &SimpleCommunicator,
    sum: QuantSum,
    len: usize,
    bucket: usize,
    seed: u64,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {rank} of {p}, len={len} bucket={bucket} seed={seed}");
    let sent: Vec<Vec<f32>> = (0..p)
        .map(|r| {
            let (scales, codes) = quantize(&vector(len, seed, r), bucket);
            dequantize(&scales, &codes, bucket)
        })
        .collect();
    let mut want = vec![0f32; len];
    for v in &sent {
        for (w, x) in want.iter_mut().zip(v) {
            *w += x;
        }
    }
    let (scales, codes) = quantize(&vector(len, seed, rank), bucket);
    let got = sum(world, &scales, &codes, bucket);
    // The classic slip: every rank's codes read with one rank's scales (this rank's, or
    // the first's): the codes gathered without the scales they were made with.
    let one_ranks = |s: usize| -> Vec<f32> {
        let theirs = quantize(&vector(len, seed, s), bucket).0;
        let mut out = vec![0f32; len];
        for r in 0..p {
            let codes = quantize(&vector(len, seed, r), bucket).1;
            for (o, x) in out.iter_mut().zip(dequantize(&theirs, &codes, bucket)) {
                *o += x;
            }
        }
        out
    };
    let near = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
    };
    let why =
        match p > 1 && got != want && (near(&got, &one_ranks(rank)) || near(&got, &one_ranks(0))) {
            true => {
                ": every rank's codes read with one rank's scales: your quantized_sum must \
                 gather each rank's scales with its codes"
            }
            false => "",
        };
    close_sums(
        &format!("{at}: the sum of every rank's codes, each dequantised with its own scales"),
        &got,
        &want,
        &abs_sums(len, &sent),
        p,
    )
    .map_err(|e| e + why)
}
