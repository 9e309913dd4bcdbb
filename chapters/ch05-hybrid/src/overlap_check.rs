//! Given code for `staging_bench`: does ex 5.6's pipeline take the time its parts
//! predict when they overlap? And one run's timeline.
//!
//! [`overlap_check`] times, in turns (so that both see the same load on a shared
//! machine), the whole pipeline and its parts alone: one chunk's copy to the host (the
//! copy's own time, as the stream's timeline records it) and one chunk's allreduce and
//! copy back (the rank thread's work). [`Overlap::model`] then prices the pipeline with
//! the copies hidden: `fill + (chunks - 1) · max(copy, comm) + drain`.

use crate::measure::tensor;
use crate::staging::staged_allreduce;
use crate::staging_trace::{self, COPIER};
use crate::stream::{to_device, Staging};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tch::Device;
use toolkit::perfetto::Span;
use toolkit::report::Timing;

/// One chunk's parts, each measured alone (medians, the slowest rank's), and how many
/// chunks the pipeline has.
#[derive(Clone, Copy, Debug)]
pub struct Overlap {
    /// One chunk's copy to the host (the copy itself, as the stream records it).
    pub copy: f64,
    /// What the rank thread does per chunk meanwhile: the allreduce and the copy back.
    pub comm: f64,
    /// Chunks.
    pub chunks: usize,
}

impl Overlap {
    /// `fill + (chunks - 1) · max(copy, comm) + drain`: the first copy alone (fill), then
    /// each turn the next chunk's copy runs beside this chunk's allreduce and copy back
    /// (the slower decides), then the last chunk's allreduce and copy back alone (drain).
    pub fn model(&self) -> f64 {
        self.copy + (self.chunks.max(1) - 1) as f64 * self.copy.max(self.comm) + self.comm
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Ex 5.6 on `n` f32 on `device` in chunks of `chunk` elements, `rounds` times, each
/// round followed by the parts alone: the pipeline's median time, and its [`Overlap`].
pub fn overlap_check(
    world: &SimpleCommunicator,
    (n, chunk, device): (usize, usize, Device),
    rounds: usize,
) -> (f64, Overlap) {
    let c = chunk.clamp(1, n.max(1));
    let chunks = n.div_ceil(c);
    let mut t = tensor(world, n, device);
    let mut staging = Staging::<f32>::new(c, n, device).expect("chunk >= 1");
    let (send, mut recv) = (vec![1.0f32; c], vec![0.0f32; c]);
    let mut back = tensor(world, n, device);
    let (mut whole, mut copies, mut comms) = (vec![], vec![], vec![]);
    staged_allreduce(world, &mut t, &mut staging); // warm-up
    for _ in 0..rounds.max(1) {
        world.barrier();
        let start = Instant::now();
        staged_allreduce(world, &mut t, &mut staging);
        whole.push(start.elapsed().as_secs_f64());
        world.barrier();
        staging_trace::start();
        for _ in 0..chunks.min(64) {
            let Staging { slots, stream, .. } = &mut staging;
            // SAFETY: the slot is not read, and `t` not written, before the synchronisation.
            unsafe { stream.start_to_host(&t, 0, &mut slots[0].send, c) };
            stream.synchronize();
        }
        let spans = staging_trace::stop();
        copies.extend(
            spans
                .iter()
                .filter(|s| s.track == COPIER)
                .map(|s| s.end - s.start),
        );
        world.barrier();
        for _ in 0..chunks.min(64) {
            let start = Instant::now();
            // The allreduce as ex 5.6 calls it (immediate, then wait: Open MPI may
            // choose another algorithm for the blocking call), then the copy back.
            mpi::request::scope(|scope| {
                world
                    .immediate_all_reduce_into(
                        scope,
                        &send[..],
                        &mut recv[..],
                        SystemOperation::sum(),
                    )
                    .wait();
            });
            to_device(&mut back, 0, &recv);
            comms.push(start.elapsed().as_secs_f64());
        }
    }
    let slowest = |x: f64| Timing::over_ranks(world, x).max;
    let overlap = Overlap {
        copy: slowest(median(copies)),
        comm: slowest(median(comms)),
        chunks,
    };
    (slowest(median(whole)), overlap)
}

/// One staged allreduce of `n` f32 on `device` in chunks of `chunk`, recorded: this
/// rank's timeline (copy stream and rank thread, see [`crate::staging_trace`]).
pub fn traced(world: &SimpleCommunicator, n: usize, chunk: usize, device: Device) -> Vec<Span> {
    let mut t = tensor(world, n, device);
    let mut staging = Staging::<f32>::new(chunk, n, device).expect("chunk >= 1");
    staged_allreduce(world, &mut t, &mut staging); // warm-up
    world.barrier();
    staging_trace::start();
    staged_allreduce(world, &mut t, &mut staging);
    staging_trace::stop()
}
