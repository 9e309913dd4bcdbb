//! Given code: the machine as the cost model sees it, one [`CostModel`] per vector size
//! (a "rung"), measured with every rank busy, the way the ring keeps them busy.
//! [`calibrate`] measures the ladder; the `sweep` benchmark prints it beside its timings.

use crate::cost::{CostModel, Costs, EAGER_LIMIT};
use ch01::model::AlphaBeta;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

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

/// The median over `reps` runs of `run` of the slowest rank's seconds, each run timed
/// after a barrier (no warm-up: call `run` once first where the first run is slower).
/// Collective. The benchmarks of chapters 12 and 13 time their calls with it.
pub fn median_of_runs(world: &SimpleCommunicator, reps: usize, mut run: impl FnMut()) -> f64 {
    let times: Vec<f64> = (0..reps)
        .map(|_| {
            world.barrier();
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64()
        })
        .collect();
    median_over_job(world, &times)
}

/// Seconds per repetition of `body`: [`median_over_job`] of `reps` timed repetitions,
/// after a barrier and one warm-up.
fn seconds_per_rep(world: &SimpleCommunicator, reps: usize, body: impl FnMut()) -> f64 {
    seconds_per_rep_after(world, reps, || {}, body)
}

/// [`seconds_per_rep`] with `prepare` run before each repetition, untimed.
fn seconds_per_rep_after(
    world: &SimpleCommunicator,
    reps: usize,
    mut prepare: impl FnMut(),
    mut body: impl FnMut(),
) -> f64 {
    prepare();
    body(); // warm-up
    world.barrier();
    let times: Vec<f64> = (0..reps)
        .map(|_| {
            prepare();
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
/// rung's size of data the sender has just written (as every algorithm sends what it
/// has just reduced or copied), gamma from every rank reducing two vectors of that
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
        let out = std::cell::RefCell::new(vec![1u8; bytes]);
        let mut inbox = vec![0u8; bytes];
        // Every algorithm sends what it has just computed or copied: the sender writes
        // its vector before each shift (not timed). Unchanged data, shifted again and
        // again, moves about twice as fast (the receiver finds it clean in the caches)
        // and made the model 2-3x too optimistic at 64 KiB..4 MiB.
        let mut round = 0u8;
        seconds_per_rep_after(
            world,
            reps(bytes),
            || {
                round = round.wrapping_add(1);
                out.borrow_mut().fill(round);
            },
            || {
                send_receive_into(&out.borrow()[..], &right, &mut inbox[..], &left);
            },
        )
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
    use crate::cost::CostModel;

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
