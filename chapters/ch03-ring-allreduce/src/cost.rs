//! Given code: the cost model of each allreduce algorithm, and its calibration.
//!
//! One message of `n` bytes costs `alpha + n / beta` (chapter 1's [`AlphaBeta`]);
//! reducing `n` bytes costs `n * gamma` more (Thakur, Rabenseifner and Gropp, 2005). Each
//! algorithm is a number of messages of some size plus some bytes reduced; [`predict`]
//! adds them up. [`calibrate`] measures alpha, beta and gamma with every rank busy, the
//! way the ring keeps them busy. Nothing to run here: the `sweep` benchmark prints both.

use ch01::model::AlphaBeta;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// Bytes per segment of the segmented ring (ex 3.3): small enough to stay in a core's
/// cache between arriving and being reduced, large enough that alpha stays small.
pub const SEGMENT_BYTES: usize = 256 << 10;

/// The allreduce algorithms of the chapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// MPI_Allreduce itself (the library chooses its own algorithm).
    Mpi,
    /// Ring reduce-scatter then ring allgather (ex 3.1 + 3.2).
    Ring,
    /// The ring with non-blocking, segmented steps (ex 3.3).
    SegmentedRing,
    /// Recursive doubling, extra ranks folded in first (ex 3.4).
    RecursiveDoubling,
    /// Reduce to rank 0, then send the result to everyone.
    Naive,
}

impl Algorithm {
    /// Every algorithm, in the benchmark's order.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Mpi,
        Algorithm::Ring,
        Algorithm::SegmentedRing,
        Algorithm::RecursiveDoubling,
        Algorithm::Naive,
    ];

    /// A short name for tables and plots.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Mpi => "MPI_Allreduce",
            Algorithm::Ring => "ring",
            Algorithm::SegmentedRing => "segmented ring",
            Algorithm::RecursiveDoubling => "rec. doubling",
            Algorithm::Naive => "reduce+bcast",
        }
    }
}

/// The machine as the algorithms see it: a link (alpha, beta) and a reduction speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Latency (seconds) and bandwidth (bytes per second) of one message.
    pub link: AlphaBeta,
    /// Seconds to reduce one byte (`acc ∘= other`, reading both, writing one).
    pub gamma: f64,
}

// ANCHOR: predict
/// The time the model predicts for `alg` to allreduce `bytes` bytes over `p` ranks.
///
/// With `n = bytes`, `c = n / p` (one chunk), `m(x) = alpha + x / beta`:
/// - ring: `2(p-1)` messages of `c`, `(p-1)` chunks reduced:
///   `2(p-1)·alpha + 2(p-1)/p·n/beta + (p-1)/p·n·gamma`;
/// - segmented ring: the same bytes, but each reduce-scatter step sends
///   `k = ceil(c / SEGMENT_BYTES)` messages: `(p-1)(k+1)·alpha + ...`;
/// - recursive doubling over `q = 2^floor(log2 p)` ranks: `log2 q` rounds of
///   `m(n) + n·gamma`, plus, when `p > q`, one fold-in `m(n) + n·gamma` and one
///   fold-out `m(n)`;
/// - naive: rank 0 receives and reduces `p-1` vectors, then sends `p-1`:
///   `2(p-1)·m(n) + (p-1)·n·gamma`;
/// - MPI: the better of ring and recursive doubling (what a tuned library picks).
///
/// Every algorithm of ours also starts by copying `xs` into its result: `n·gamma` more.
pub fn predict(alg: Algorithm, model: &CostModel, p: usize, bytes: usize) -> f64 {
    let (n, pf) = (bytes as f64, p as f64);
    let (alpha, beta, gamma) = (model.link.alpha, model.link.beta, model.gamma);
    let msg = |x: f64| alpha + x / beta;
    if p <= 1 {
        return 0.0;
    }
    let copy = if alg == Algorithm::Mpi {
        0.0
    } else {
        n * gamma
    };
    copy + match alg {
        Algorithm::Ring => (pf - 1.0) * (2.0 * msg(n / pf) + n / pf * gamma),
        Algorithm::SegmentedRing => {
            let k = (bytes / p).div_ceil(SEGMENT_BYTES).max(1) as f64;
            predict(Algorithm::Ring, model, p, bytes) - n * gamma + (pf - 1.0) * (k - 1.0) * alpha
        }
        Algorithm::RecursiveDoubling => {
            let q = 1usize << p.ilog2();
            let rounds = f64::from(q.ilog2()) * (msg(n) + n * gamma);
            let fold = if p > q { 2.0 * msg(n) + n * gamma } else { 0.0 };
            rounds + fold
        }
        Algorithm::Naive => (pf - 1.0) * (2.0 * msg(n) + n * gamma),
        Algorithm::Mpi => {
            let ring = predict(Algorithm::Ring, model, p, bytes);
            ring.min(predict(Algorithm::RecursiveDoubling, model, p, bytes)) - n * gamma
        }
    }
}
// ANCHOR_END: predict

/// Seconds per repetition of `body`, the maximum over ranks of each rank's mean.
fn seconds_per_rep(world: &SimpleCommunicator, reps: usize, mut body: impl FnMut()) -> f64 {
    body(); // warm-up
    world.barrier();
    let start = Instant::now();
    for _ in 0..reps {
        body();
    }
    let mine = start.elapsed().as_secs_f64() / reps as f64;
    toolkit::report::Timing::over_ranks(world, mine).max
}

// ANCHOR: calibrate
/// Measures the model on this machine with every rank busy: alpha from a ring shift of
/// 8 bytes (everyone sends to the right and receives from the left at once), beta from a
/// shift of 16 MiB, gamma from every rank summing two 16 MiB vectors of `f32` at once
/// (larger than the caches, as the large messages are).
/// Collective: call it on every rank; all get the same model.
pub fn calibrate(world: &SimpleCommunicator) -> CostModel {
    let (rank, size) = (world.rank(), world.size());
    let right = world.process_at_rank((rank + 1) % size);
    let left = world.process_at_rank((rank - 1 + size) % size);
    let shift = |bytes: usize, reps: usize| {
        let out = vec![1u8; bytes];
        let mut inbox = vec![0u8; bytes];
        seconds_per_rep(world, reps, || {
            send_receive_into(&out[..], &right, &mut inbox[..], &left);
        })
    };
    let alpha = shift(8, 400);
    let big = 16 << 20;
    let beta = big as f64 / (shift(big, 6) - alpha).max(1e-9);
    let mut acc = vec![1.0f32; big / 4];
    let other = vec![0.5f32; big / 4];
    let reduce = seconds_per_rep(world, 6, || {
        crate::ops::Op::Sum.reduce_into(&mut acc, &other);
    });
    CostModel {
        link: AlphaBeta { alpha, beta },
        gamma: reduce / big as f64,
    }
}
// ANCHOR_END: calibrate

#[cfg(test)]
mod tests {
    use super::*;

    const M: CostModel = CostModel {
        link: AlphaBeta {
            alpha: 1e-6,
            beta: 1e9,
        },
        gamma: 1e-10,
    };

    #[test]
    fn the_ring_sends_two_p_minus_one_over_p_of_the_data() {
        let no_latency = CostModel {
            link: AlphaBeta {
                alpha: 0.0,
                ..M.link
            },
            gamma: 0.0,
        };
        let t = predict(Algorithm::Ring, &no_latency, 4, 4_000_000);
        assert!((t - 2.0 * 3.0 / 4.0 * 4e-3).abs() < 1e-12, "{t}");
        let mpi = predict(Algorithm::Mpi, &M, 4, 4_000_000);
        assert!((predict(Algorithm::Ring, &M, 4, 4_000_000) - mpi - 4e6 * 1e-10).abs() < 1e-12);
        assert_eq!(predict(Algorithm::Ring, &M, 1, 1000), 0.0);
    }

    #[test]
    fn doubling_folds_extra_ranks() {
        let at = |p| predict(Algorithm::RecursiveDoubling, &M, p, 8);
        assert!(at(5) > at(4) && at(8) > at(4));
        assert!((at(4) - 2.0 * (1e-6 + 8e-9 + 8e-10) - 8e-10).abs() < 1e-15);
    }
}
