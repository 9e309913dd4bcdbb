//! pipe_bench: the step model's `K` and `L` measured apart from the pipeline rows, so
//! that its choice of m is a prediction, not a fit to the rows it is checked against.
//!
//! In the p = 2 run, before any pipeline trains: rank 0 times a stage's forward and whole
//! backward on a micro-batch of each m's rows (`ch07::pass_costs`, this thread's CPU time)
//! and fits the compute line `k + c·rows`, for the stage of p = 2 (half the blocks) and of
//! p = 4 (a quarter); ranks 0 and 1 then ping-pong each m's activation message and fit the
//! link's `alpha + beta·bytes` (chapter 1's model). `ch07::micro_model::StepModel` turns
//! them into `K` and `L` and the best m at each p.

use ch07::micro_model::{fit_line, Line, StepModel};
use ch07::pass_costs;
use ch07::stage_model::{Shape, StageModel};
use ch07::wire::WireElem;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;
use tch::Device;

/// Round trips per message size of the ping-pong.
const ROUND_TRIPS: usize = 200;
/// Repetitions per pass of the compute timing (medians).
const REPS: usize = 30;

/// The step model at one p, measured apart, as rank 0 prints it (`APART {json}`).
#[derive(Serialize, Deserialize)]
pub struct Apart {
    /// Stages.
    pub p: usize,
    /// The stage's compute line: ms per micro-batch call and per row (forward + backward).
    pub compute_ms: (f64, f64),
    /// The link: alpha in microseconds, beta in nanoseconds per byte.
    pub link: (f64, f64),
    /// `K` and `L`, in ms.
    pub k_ms: f64,
    /// `L` in ms.
    pub l_ms: f64,
    /// The candidate m the model picks, and `m*`.
    pub best_m: usize,
    /// `m* = sqrt((p-1)L/K)`; none when `K` or `L` came out not positive (noise).
    pub m_star: Option<f64>,
}

/// Measures the model's parts at p = 2 (this world, two ranks) and predicts for each of
/// `stages`; rank 0 prints one `APART` line per p.
pub fn measure<E: WireElem>(
    world: &SimpleCommunicator,
    shape: Shape,
    batch: usize,
    micro: &[usize],
    stages: &[usize],
) {
    assert_eq!(world.size(), 2, "the ping-pong runs between two ranks");
    let rows: Vec<usize> = micro.iter().map(|m| batch / m).collect();
    let row_bytes = (shape.width as usize * std::mem::size_of::<E>()) as f64;
    let lines: Vec<Line> = match world.rank() {
        0 => stages
            .iter()
            .map(|&p| compute_line(shape, shape.depth / p, &rows))
            .collect(),
        _ => vec![],
    };
    world.barrier();
    let bytes: Vec<usize> = rows.iter().map(|r| r * row_bytes as usize).collect();
    let link = ping_pong(world, &bytes);
    if world.rank() != 0 {
        return;
    }
    for (&p, compute) in stages.iter().zip(lines) {
        // StepModel is in seconds; the compute line came in ms.
        let in_s = Line {
            fixed: compute.fixed * 1e-3,
            per_unit: compute.per_unit * 1e-3,
        };
        let model = StepModel::new(in_s, link.fixed, link.per_unit, row_bytes, batch);
        toolkit::bench::print_tagged(
            "APART",
            &Apart {
                p,
                compute_ms: (compute.fixed, compute.per_unit),
                link: (1e6 * link.fixed, 1e9 * link.per_unit),
                k_ms: 1e3 * model.per_micro_batch,
                l_ms: 1e3 * model.per_batch,
                best_m: model.best_m(p, micro),
                m_star: Some(model.best_real_m(p)).filter(|m| m.is_finite()),
            },
        );
    }
}

/// The forward + whole backward of a middle stage of `blocks` blocks, in ms, as a line in
/// the micro-batch's rows.
fn compute_line(shape: Shape, blocks: usize, rows: &[usize]) -> Line {
    let stage = StageModel::new(shape, 0..blocks, false, false, 1, Device::Cpu);
    let points: Vec<(f64, f64)> = rows
        .iter()
        .map(|&r| {
            let passes = pass_costs::measure(&stage, r as i64, toolkit::bench::sized(REPS, 1));
            (r as f64, passes.forward + passes.whole)
        })
        .collect();
    fit_line(&points)
}

/// Half the median round trip between ranks 0 and 1 at each size, as a line in bytes
/// (seconds): alpha and beta. Every rank returns it.
fn ping_pong(world: &SimpleCommunicator, sizes: &[usize]) -> Line {
    let peer = world.process_at_rank(1 - world.rank());
    let points: Vec<(f64, f64)> = sizes
        .iter()
        .map(|&bytes| {
            let mut buf = vec![0u8; bytes];
            let mut trips: Vec<f64> = (0..toolkit::bench::sized(ROUND_TRIPS, 2))
                .map(|_| {
                    let t0 = Instant::now();
                    if world.rank() == 0 {
                        peer.send(&buf[..]);
                        peer.receive_into(&mut buf[..]);
                    } else {
                        peer.receive_into(&mut buf[..]);
                        peer.send(&buf[..]);
                    }
                    t0.elapsed().as_secs_f64()
                })
                .collect();
            trips.sort_by(f64::total_cmp);
            (bytes as f64, trips[trips.len() / 2] / 2.0)
        })
        .collect();
    fit_line(&points)
}
