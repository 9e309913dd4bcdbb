//! Given code: the cost model of each allreduce algorithm, and its calibration.
//!
//! One message of `n` bytes costs `alpha + n / beta` (chapter 1's [`AlphaBeta`]);
//! reducing `n` bytes costs `n * gamma` more (Thakur, Rabenseifner and Gropp, 2005). Each
//! algorithm is a number of messages of some size plus some bytes reduced; [`predict`]
//! adds them up. The measured machine, one model per vector size, is in
//! [`crate::machine`] (re-exported here). Nothing to run here: the `sweep` benchmark
//! prints both.

use ch01::model::AlphaBeta;

pub use crate::machine::{
    calibrate, calibrate_at, median_of_runs, median_over_job, Machine, Rung, LADDER,
};

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
    /// A binomial tree reduce to rank 0, then a binomial broadcast (chapter 2's ex 2.3, 2.2).
    BinomialTree,
    /// Recursive-halving reduce-scatter, then recursive-doubling allgather (ex 3.6).
    Rabenseifner,
    /// Two binary trees, half the vector up and down each, in segments (ex 3.7).
    DoubleTree,
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

    /// The algorithms of the page on trees and halving that a benchmark flag lists
    /// (`--with tree,rabenseifner,dtree`: the sweep adds them to [`Algorithm::ALL`]).
    /// Panics on a name it does not know, saying which it knows.
    pub fn from_flags(list: &str) -> Vec<Algorithm> {
        let one = |name: &str| match name {
            "tree" => Algorithm::BinomialTree,
            "rabenseifner" => Algorithm::Rabenseifner,
            "dtree" => Algorithm::DoubleTree,
            _ => panic!("--with {name}: expected tree, rabenseifner or dtree (a comma list)"),
        };
        list.split(',').filter(|f| !f.is_empty()).map(one).collect()
    }

    /// A short name for tables and plots.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Mpi => "MPI_Allreduce",
            Algorithm::Ring => "ring",
            Algorithm::SegmentedRing => "segmented ring",
            Algorithm::RecursiveDoubling => "rec. doubling",
            Algorithm::Naive => "reduce+bcast",
            Algorithm::BinomialTree => "binomial tree",
            Algorithm::Rabenseifner => "Rabenseifner",
            Algorithm::DoubleTree => "double tree",
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
/// - binomial tree: a reduce to rank 0 in `L = ceil(log2 p)` rounds, rank 0 receiving
///   and reducing a whole vector in each, then a broadcast down the same tree in `L`
///   rounds: `L·(2·m(n) + r(n))`; buffers: the copy and an inbox, `2·f(n)`;
/// - Rabenseifner over `q = 2^floor(log2 p)` ranks: recursive halving, rounds of
///   `m(n/2^k) + r(n/2^k)` for `k = 1 .. log2 q`, then recursive doubling back up, rounds
///   of `m(n/2^k)`: the ring's `2(q-1)/q·n` bytes in `2·log2 q` messages; when `p > q`
///   the fold-in and fold-out of ex 3.4, `2·m(n) + r(n)`; buffers: the copy and a
///   half-vector inbox, `f(n) + f(n/2)`;
/// - double binary tree: `k = ceil((n/2) / SEGMENT_BYTES)` segments of `s` bytes per half;
///   a segment of each tree climbs `D` levels ([`crate::binary_tree::depth`]), `2D`
///   messages one after the other for the two trees, and the later segments follow at
///   the pace of the busiest rank, which receives `u` segments per step (two children
///   going up, two parents going down) and reduces `v`: up and down,
///   `2·(2D + (k-1)·u)·m(s) + (D + k - 1)·v·r(s)`; buffers: the copy and a segment,
///   `f(n) + f(s)`;
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
        Algorithm::BinomialTree => {
            let rounds = f64::from(p.next_power_of_two().ilog2());
            2.0 * fresh(bytes) + rounds * (2.0 * msg(bytes) + reduce(bytes))
        }
        Algorithm::Rabenseifner => {
            let q = 1usize << p.ilog2();
            let halves = (1..=q.ilog2()).map(|k| bytes >> k);
            let rounds: f64 = halves.map(|x| 2.0 * msg(x) + reduce(x)).sum();
            let fold = if p > q {
                2.0 * msg(bytes) + reduce(bytes)
            } else {
                0.0
            };
            fresh(bytes) + fresh(bytes / 2) + rounds + fold
        }
        Algorithm::DoubleTree => {
            let s = (bytes / 2).clamp(1, SEGMENT_BYTES);
            let (d, k) = (
                crate::binary_tree::depth(p) as f64,
                (bytes / 2).div_ceil(s).max(1) as f64,
            );
            let (u, v) = busiest_in_double_tree(p);
            let messages = 2.0 * (2.0 * d + (k - 1.0) * u as f64) * msg(s);
            fresh(bytes) + fresh(s) + messages + (d + k - 1.0) * v as f64 * reduce(s)
        }
        Algorithm::Mpi => {
            let ring = predict(Algorithm::Ring, costs, p, bytes) - fresh(c);
            let doubling = predict(Algorithm::RecursiveDoubling, costs, p, bytes);
            ring.min(doubling) - fresh(bytes)
        }
    }
}
// ANCHOR_END: predict

/// The most segments one rank receives per step of a phase of the double tree (its
/// children in both trees going up, its parents going down), and the most it reduces
/// (its children's), over the ranks of `p`.
fn busiest_in_double_tree(p: usize) -> (usize, usize) {
    (0..p)
        .map(|r| {
            let trees = crate::binary_tree::double_binary_tree(p, r);
            let children: usize = trees.iter().map(|t| t.children.len()).sum();
            let parents = trees.iter().filter(|t| t.parent.is_some()).count();
            (children.max(parents), children)
        })
        .fold((0, 0), |(u, v), (a, b)| (u.max(a), v.max(b)))
}

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

    /// `M`'s bandwidth and nothing else: no latency, reduction or buffer costs.
    const BANDWIDTH_ONLY: CostModel = CostModel {
        link: AlphaBeta {
            alpha: 0.0,
            beta: 1e9,
        },
        gamma: 0.0,
        rendezvous: 0.0,
        fresh: 0.0,
    };

    #[test]
    fn the_ring_sends_two_p_minus_one_over_p_of_the_data() {
        let t = predict(Algorithm::Ring, &BANDWIDTH_ONLY, 4, 4_000_000);
        assert!((t - 2.0 * 3.0 / 4.0 * 4e-3).abs() < 1e-12, "{t}");
        let mpi = predict(Algorithm::Mpi, &M, 4, 4_000_000);
        // MPI allocates only its result; ours copy xs and allocate an inbox of one chunk
        let buffers = (4e6 + 1e6) * 1e-11;
        assert!((predict(Algorithm::Ring, &M, 4, 4_000_000) - mpi - buffers).abs() < 1e-12);
        assert_eq!(predict(Algorithm::Ring, &M, 1, 1000), 0.0);
    }

    #[test]
    fn the_double_tree_fills_its_pipe_then_streams_two_segments_a_step() {
        // 8 ranks: depth 3; 32 segments per half; 2 segments received per step
        let s = SEGMENT_BYTES as f64 / 1e9;
        let t = predict(
            Algorithm::DoubleTree,
            &BANDWIDTH_ONLY,
            8,
            64 * SEGMENT_BYTES,
        );
        assert!(
            (t - 2.0 * (2.0 * 3.0 + 31.0 * 2.0) * s).abs() < 1e-12,
            "{t}"
        );
    }

    #[test]
    fn doubling_folds_extra_ranks() {
        let at = |p| predict(Algorithm::RecursiveDoubling, &M, p, 8);
        assert!(at(5) > at(4) && at(8) > at(4));
        assert!((at(4) - 2.0 * (1e-6 + 8e-9 + 8e-10) - 16e-11).abs() < 1e-15);
    }
}
