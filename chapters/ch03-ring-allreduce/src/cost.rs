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

/// Open MPI's shared-memory eager limit (`btl_vader_eager_limit`, 4 KiB): smaller
/// messages are copied into the receiver's queue at once; from this size on they wait
/// for a handshake. (MPICH's limit differs; the ping-pong of chapter 1 shows the step.)
pub const EAGER_LIMIT: usize = 4 << 10;

/// The machine as the algorithms see it at one size: a link (alpha, beta), a reduction
/// speed, and the price of fresh memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Latency (seconds) and bandwidth (bytes per second) of one message.
    pub link: AlphaBeta,
    /// Seconds to reduce one byte (`acc ∘= other`, reading both, writing one).
    pub gamma: f64,
    /// Latency (seconds) of a message of [`EAGER_LIMIT`] bytes or more: such a message
    /// waits for a handshake (rendezvous) before its data moves; `link.alpha` is the
    /// latency of the smaller, eager ones.
    pub rendezvous: f64,
    /// Seconds per byte of a buffer the algorithm allocates (`xs.to_vec()`, an inbox):
    /// the copy, plus the page faults of memory the process has not touched before.
    pub fresh: f64,
}

// ANCHOR: predict
/// The costs as a function of the size of the vector: a [`CostModel`] is one regime for
/// every size; a [`Machine`] has one per size (caches, then DRAM).
pub trait Costs {
    /// The model for an allreduce of a vector of `bytes` bytes per rank.
    fn at(&self, bytes: usize) -> CostModel;
}

impl Costs for CostModel {
    fn at(&self, _bytes: usize) -> CostModel {
        *self
    }
}

/// The time the model predicts for `alg` to allreduce `bytes` bytes over `p` ranks.
///
/// With `n = bytes`, `c = n / p` (one chunk), and the costs of the regime the vector of
/// `n` bytes lives in (`costs.at(n)`): `m(x) = alpha + x / beta` (a message; alpha is
/// `rendezvous` from [`EAGER_LIMIT`] bytes on), `r(x) = x·gamma` (a reduction),
/// `f(x) = x·fresh` (a new buffer):
/// - ring: `2(p-1)` messages of `c`, `(p-1)` chunks reduced, a copy of `xs` and an
///   inbox: `2(p-1)·m(c) + (p-1)·r(c) + f(n) + f(c)`;
/// - segmented ring: the same, but each reduce-scatter step sends
///   `k = ceil(c / SEGMENT_BYTES)` messages: `(p-1)(k-1)` more latencies;
/// - recursive doubling over `q = 2^floor(log2 p)` ranks: `log2 q` rounds of
///   `m(n) + r(n)`, plus, when `p > q`, one fold-in `m(n) + r(n)` and one fold-out
///   `m(n)`; buffers: the copy and a whole vector to receive into, `2·f(n)`;
/// - naive: rank 0 receives and reduces `p-1` vectors, then sends `p-1`:
///   `2(p-1)·m(n) + (p-1)·r(n) + 2·f(n)`;
/// - MPI: the better of ring and recursive doubling (what a tuned library picks), with
///   one new buffer, its result: `f(n)`.
pub fn predict(alg: Algorithm, costs: &impl Costs, p: usize, bytes: usize) -> f64 {
    let pf = p as f64;
    if p <= 1 {
        return 0.0;
    }
    // Every algorithm touches the whole vector (and its copy) in every call: its
    // messages, reductions and buffers all pay the regime the vector lives in.
    let m = costs.at(bytes);
    let latency = |x: usize| {
        if x >= EAGER_LIMIT {
            m.rendezvous
        } else {
            m.link.alpha
        }
    };
    let msg = |x: usize| latency(x) + x as f64 / m.link.beta;
    let reduce = |x: usize| x as f64 * m.gamma;
    let fresh = |x: usize| x as f64 * m.fresh;
    let c = bytes / p;
    match alg {
        Algorithm::Ring => fresh(bytes) + fresh(c) + (pf - 1.0) * (2.0 * msg(c) + reduce(c)),
        Algorithm::SegmentedRing => {
            let k = c.div_ceil(SEGMENT_BYTES).max(1) as f64;
            let extra = (pf - 1.0) * (k - 1.0) * latency(SEGMENT_BYTES);
            predict(Algorithm::Ring, costs, p, bytes) + extra
        }
        Algorithm::RecursiveDoubling => {
            let q = 1usize << p.ilog2();
            let rounds = f64::from(q.ilog2()) * (msg(bytes) + reduce(bytes));
            let fold = if p > q {
                2.0 * msg(bytes) + reduce(bytes)
            } else {
                0.0
            };
            2.0 * fresh(bytes) + rounds + fold
        }
        Algorithm::Naive => 2.0 * fresh(bytes) + (pf - 1.0) * (2.0 * msg(bytes) + reduce(bytes)),
        Algorithm::Mpi => {
            let ring = predict(Algorithm::Ring, costs, p, bytes) - fresh(c);
            let doubling = predict(Algorithm::RecursiveDoubling, costs, p, bytes);
            ring.min(doubling) - fresh(bytes)
        }
    }
}
// ANCHOR_END: predict

// ANCHOR: machine
/// One calibration point: the model measured with vectors of `bytes` bytes per rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rung {
    /// The vector size of the measurement (bytes per rank).
    pub bytes: usize,
    /// Alpha, beta, gamma and fresh as measured at that size.
    pub model: CostModel,
}

/// The machine over all sizes: one [`CostModel`] per rung of a ladder of vector sizes.
/// One beta is not enough: a vector that fits in the caches moves and reduces several
/// times faster than one that lives in DRAM, and the ranks of one host share the cache.
/// [`Costs::at`] gives the model of a size between two rungs by interpolating the
/// per-byte costs (`1/beta`, `gamma`, `fresh`) on a log scale of the size.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The rungs, ascending by size.
    pub rungs: Vec<Rung>,
}

impl Costs for Machine {
    /// The cost model of the regime `bytes` bytes live in. Below the first rung, the
    /// first; above the last, the last.
    fn at(&self, bytes: usize) -> CostModel {
        let r = &self.rungs;
        let i = r.partition_point(|g| g.bytes <= bytes);
        if i == 0 || i == r.len() {
            return r[i.saturating_sub(1)].model;
        }
        let (a, b) = (&r[i - 1], &r[i]);
        if a.bytes == bytes {
            return a.model;
        }
        let t = ((bytes as f64).ln() - (a.bytes as f64).ln())
            / ((b.bytes as f64).ln() - (a.bytes as f64).ln());
        let mix = |x: f64, y: f64| x + t * (y - x);
        CostModel {
            link: AlphaBeta {
                alpha: mix(a.model.link.alpha, b.model.link.alpha),
                beta: 1.0 / mix(1.0 / a.model.link.beta, 1.0 / b.model.link.beta),
            },
            gamma: mix(a.model.gamma, b.model.gamma),
            rendezvous: mix(a.model.rendezvous, b.model.rendezvous),
            fresh: mix(a.model.fresh, b.model.fresh),
        }
    }
}

impl Machine {
    /// Replaces the rung of the same size by `rung`, or inserts it in order.
    pub fn update(&mut self, rung: Rung) {
        match self.rungs.binary_search_by_key(&rung.bytes, |r| r.bytes) {
            Ok(i) => self.rungs[i] = rung,
            Err(i) => self.rungs.insert(i, rung),
        }
    }

    /// The largest drop of beta between two neighbouring rungs, as (below, above): where
    /// the vectors stop fitting in a cache. `None` with fewer than two rungs.
    pub fn crossover(&self) -> Option<(Rung, Rung)> {
        let pairs = self.rungs.windows(2).map(|w| (w[0], w[1]));
        let drop = |(a, b): &(Rung, Rung)| a.model.link.beta / b.model.link.beta;
        pairs.max_by(|x, y| drop(x).total_cmp(&drop(y)))
    }
}
// ANCHOR_END: machine

/// The vector sizes calibrated, bytes per rank: 64 KiB (in a core's L2) to 64 MiB (in
/// DRAM), every 2x.
pub const LADDER: [usize; 11] = [
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    8 << 20,
    16 << 20,
    32 << 20,
    64 << 20,
];

/// The median over repetitions of the job's time per repetition (the slowest rank's):
/// `mine[i]` is this rank's time of repetition `i`. The median, not the mean: on a
/// shared machine a rank is sometimes descheduled for a whole time slice (milliseconds),
/// and one such repetition would move the mean of a microsecond operation far away.
/// Collective: every rank passes as many times; all get the same answer.
pub fn median_over_job(world: &SimpleCommunicator, mine: &[f64]) -> f64 {
    use mpi::collective::SystemOperation;
    let mut job = vec![0.0; mine.len()];
    world.all_reduce_into(mine, &mut job[..], SystemOperation::max());
    job.sort_by(f64::total_cmp);
    job.get(job.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Seconds per repetition of `body`: [`median_over_job`] of `reps` timed repetitions,
/// after a barrier and one warm-up.
fn seconds_per_rep(world: &SimpleCommunicator, reps: usize, mut body: impl FnMut()) -> f64 {
    body(); // warm-up
    world.barrier();
    let times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            body();
            start.elapsed().as_secs_f64()
        })
        .collect();
    median_over_job(world, &times)
}

// ANCHOR: calibrate
/// Measures the model on this machine with every rank busy, at each size of
/// [`LADDER`]: alpha from a ring shift of 8 bytes (everyone sends to the right and
/// receives from the left at once: chapter 1's ping-pong with every rank busy), the
/// rendezvous latency from a shift of [`EAGER_LIMIT`] bytes, beta from a shift of the
/// rung's size, gamma from every rank reducing two vectors of that
/// size at once, fresh from copying one into a new allocation (`to_vec`, as the
/// algorithms do). Collective: call it on every rank; all get the same machine.
pub fn calibrate(world: &SimpleCommunicator) -> Machine {
    Machine {
        rungs: calibrate_at(world, &LADDER),
    }
}

/// The rungs at `sizes` (bytes), measured as [`calibrate`] does. On a machine shared
/// with other work, re-measure the rung of a size right before timing it
/// ([`Machine::update`]): the model then sees the same load as the measurement.
/// Collective.
pub fn calibrate_at(world: &SimpleCommunicator, sizes: &[usize]) -> Vec<Rung> {
    let (rank, size) = (world.rank(), world.size());
    let right = world.process_at_rank((rank + 1) % size);
    let left = world.process_at_rank((rank - 1 + size) % size);
    let reps = |bytes: usize| ((64 << 20) / bytes).clamp(9, 400);
    let shift = |bytes: usize| {
        let out = vec![1u8; bytes];
        let mut inbox = vec![0u8; bytes];
        seconds_per_rep(world, reps(bytes), || {
            send_receive_into(&out[..], &right, &mut inbox[..], &left);
        })
    };
    let alpha = shift(8);
    let handshake = shift(EAGER_LIMIT);
    let rung = |&bytes: &usize| {
        // less the latency, but never more than half the time: on a busy machine the
        // 8-byte shift's median can exceed a large message's
        let t = shift(bytes);
        let beta = bytes as f64 / (t - alpha.min(t / 2.0));
        // the eager limit's message, less its bytes at this bandwidth: the handshake
        let rendezvous = (handshake - EAGER_LIMIT as f64 / beta).max(alpha);
        let mut acc = vec![1.0f32; bytes / 4];
        let other = vec![0.5f32; bytes / 4];
        let reduce = seconds_per_rep(world, reps(bytes), || {
            crate::ops::Op::Sum.reduce_into(&mut acc, &other);
        });
        let fresh = seconds_per_rep(world, reps(bytes), || {
            std::hint::black_box(other.to_vec());
        });
        Rung {
            bytes,
            model: CostModel {
                link: AlphaBeta { alpha, beta },
                gamma: reduce / bytes as f64,
                rendezvous,
                fresh: fresh / bytes as f64,
            },
        }
    };
    sizes.iter().map(rung).collect()
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
        rendezvous: 1e-6,
        fresh: 1e-11,
    };

    #[test]
    fn the_ring_sends_two_p_minus_one_over_p_of_the_data() {
        let no_latency = CostModel {
            link: AlphaBeta {
                alpha: 0.0,
                ..M.link
            },
            gamma: 0.0,
            rendezvous: 0.0,
            fresh: 0.0,
        };
        let t = predict(Algorithm::Ring, &no_latency, 4, 4_000_000);
        assert!((t - 2.0 * 3.0 / 4.0 * 4e-3).abs() < 1e-12, "{t}");
        let mpi = predict(Algorithm::Mpi, &M, 4, 4_000_000);
        // MPI allocates only its result; ours copy xs and allocate an inbox of one chunk
        let buffers = (4e6 + 1e6) * 1e-11;
        assert!((predict(Algorithm::Ring, &M, 4, 4_000_000) - mpi - buffers).abs() < 1e-12);
        assert_eq!(predict(Algorithm::Ring, &M, 1, 1000), 0.0);
    }

    #[test]
    fn doubling_folds_extra_ranks() {
        let at = |p| predict(Algorithm::RecursiveDoubling, &M, p, 8);
        assert!(at(5) > at(4) && at(8) > at(4));
        assert!((at(4) - 2.0 * (1e-6 + 8e-9 + 8e-10) - 16e-11).abs() < 1e-15);
    }

    fn rung(bytes: usize, beta: f64, gamma: f64) -> Rung {
        let link = AlphaBeta { alpha: 1e-6, beta };
        let model = CostModel {
            link,
            gamma,
            rendezvous: 2e-6,
            fresh: gamma,
        };
        Rung { bytes, model }
    }

    #[test]
    fn the_machine_interpolates_between_rungs_and_finds_the_cache_edge() {
        let m = Machine {
            rungs: vec![
                rung(1 << 10, 8e9, 1e-10),
                rung(1 << 20, 8e9, 1e-10),
                rung(1 << 30, 1e9, 4e-10),
            ],
        };
        assert_eq!(m.at(8), m.rungs[0].model);
        assert_eq!(m.at(1 << 40), m.rungs[2].model);
        assert_eq!(m.at(1 << 20), m.rungs[1].model);
        // halfway on the log scale: seconds per byte halfway between 1/8e9 and 1/1e9
        let mid = m.at(1 << 25);
        let want = 0.5 * (1.0 / 8e9 + 1.0 / 1e9);
        assert!((1.0 / mid.link.beta - want).abs() < 1e-15, "{mid:?}");
        assert!((mid.gamma - 2.5e-10).abs() < 1e-18);
        let (below, above) = m.crossover().unwrap();
        assert_eq!((below.bytes, above.bytes), (1 << 20, 1 << 30));
        let mut m = m;
        m.update(rung(1 << 20, 2e9, 1e-10));
        m.update(rung(1 << 25, 2e9, 1e-10));
        let sizes: Vec<usize> = m.rungs.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, [1 << 10, 1 << 20, 1 << 25, 1 << 30]);
        assert_eq!(m.at(1 << 20).link.beta, 2e9);
    }
}
