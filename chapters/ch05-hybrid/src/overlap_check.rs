//! Given code for `staging_bench`: does ex 5.6's pipeline take the time its stages
//! predict when they overlap? And one run's timeline.
//!
//! Ex 5.6 has three stages per chunk: the copy to the host (on the copy stream: the CPU's
//! copy thread, or the GPU's stream), the allreduce and the copy back (both started by
//! the rank thread). [`overlap_check`] times, in turns (so that both see the same load on
//! a shared machine), the whole pipeline and each stage alone, walking the tensor chunk
//! by chunk as the pipeline does (so the caches see the same bytes). It also records the
//! pipeline's own timeline, which gives each stage's time *inside* the pipeline.
//! [`Overlap::model`] then prices the pipeline from the stages alone, as the code runs
//! them (see [`Copies`]).

use crate::measure::tensor;
use crate::staging::staged_allreduce;
use crate::staging_trace::{self, COPIER, RANK};
use crate::stream::{to_device, Staging};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tch::Device;
use toolkit::perfetto::Span;
use toolkit::report::Timing;

/// Where the copy back runs beside the next chunk's copy to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copies {
    /// CPU tensors: the copy thread copies chunk k+1 while the rank thread reduces chunk
    /// k *and* copies it back (a memcpy on the rank thread): a turn is
    /// `max(copy, allreduce + back)`.
    ThreadBeside,
    /// GPU tensors: both copies go on the device's one stream, so the copy back of chunk
    /// k queues behind the copy of chunk k+1 and only the allreduce hides a copy: a turn
    /// is `max(copy, allreduce) + back`.
    OneStream,
}

impl Copies {
    /// How the code copies tensors on `device`.
    pub fn on(device: Device) -> Self {
        match device {
            Device::Cpu => Copies::ThreadBeside,
            _ => Copies::OneStream,
        }
    }
}

/// One chunk's stages, medians in seconds (the slowest rank's), how many chunks the
/// pipeline has and how its copies share the work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stages {
    /// One chunk's copy to the host (the copy itself, as the stream records it).
    pub copy: f64,
    /// One chunk's allreduce (immediate, then wait, as ex 5.6 calls it).
    pub allreduce: f64,
    /// One chunk's copy back (`to_device`).
    pub back: f64,
}

/// The pipeline's stages alone and inside the pipeline, and the model.
#[derive(Clone, Copy, Debug)]
pub struct Overlap {
    /// Each stage measured alone.
    pub alone: Stages,
    /// Each stage as the pipeline's own timeline recorded it (on a GPU the copy there is
    /// from issue to landing: it includes the allreduce it hides behind).
    pub inside: Stages,
    /// Per run of the pipeline, the time its allreduces took beyond 3 times their median
    /// (a chunk whose allreduce waited for a rank that had lost its core): the median
    /// over the runs, the slowest rank's.
    pub stalls: f64,
    /// Chunks.
    pub chunks: usize,
    /// How the copies share the work.
    pub copies: Copies,
}

impl Overlap {
    /// The pipeline priced from `s`: the first copy alone (fill), then `chunks - 1`
    /// turns in which the next chunk's copy runs beside this chunk's work (see
    /// [`Copies`]: the slower side decides), then the last chunk's allreduce and copy
    /// back alone (drain).
    pub fn model_of(&self, s: Stages) -> f64 {
        let turn = match self.copies {
            Copies::ThreadBeside => s.copy.max(s.allreduce + s.back),
            Copies::OneStream => s.copy.max(s.allreduce) + s.back,
        };
        s.copy + (self.chunks.max(1) - 1) as f64 * turn + s.allreduce + s.back
    }

    /// [`Self::model_of`] the stages measured alone.
    pub fn model(&self) -> f64 {
        self.model_of(self.alone)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Medians of the spans on `track` whose names start with `prefix`.
fn median_of(spans: &[Span], track: usize, prefix: &str) -> f64 {
    median(
        spans
            .iter()
            .filter(|s| s.track == track && s.name.starts_with(prefix))
            .map(|s| s.end - s.start)
            .collect(),
    )
}

/// One run's allreduce time beyond 3 times the run's median allreduce (0 if none).
fn stall(run: &[Span]) -> f64 {
    let typical = median_of(run, RANK, "allreduce");
    run.iter()
        .filter(|s| s.track == RANK && s.name.starts_with("allreduce"))
        .map(|s| s.end - s.start)
        .filter(|&a| a > 3.0 * typical)
        .fold(0.0, |sum, a| sum + a - typical)
}

/// Ex 5.6 on `n` f32 on `device` in chunks of `chunk` elements, `rounds` times, each
/// round followed by its stages alone: the pipeline's median time, and its [`Overlap`].
pub fn overlap_check(
    world: &SimpleCommunicator,
    (n, chunk, device): (usize, usize, Device),
    rounds: usize,
) -> (f64, Overlap) {
    let c = chunk.clamp(1, n.max(1));
    let chunks = n.div_ceil(c);
    // The chunks each stage walks alone (at most 64, from the start, as the pipeline).
    let walk = || (0..chunks.min(64)).map(|k| (k * c, c.min(n - k * c)));
    let mut t = tensor(world, n, device);
    let mut staging = Staging::<f32>::new(c, n, device).expect("chunk >= 1");
    let (send, mut recv) = (vec![1.0f32; c], vec![0.0f32; c]);
    let mut back = tensor(world, n, device);
    let mut whole = vec![];
    let (mut copies, mut reduces, mut backs) = (vec![], vec![], vec![]);
    let (mut inside, mut stalled) = (vec![], vec![]);
    staged_allreduce(world, &mut t, &mut staging); // warm-up
    for _ in 0..rounds.max(1) {
        world.barrier();
        staging_trace::start();
        let start = Instant::now();
        staged_allreduce(world, &mut t, &mut staging);
        whole.push(start.elapsed().as_secs_f64());
        let run = staging_trace::stop();
        stalled.push(stall(&run));
        inside.extend(run);
        world.barrier();
        staging_trace::start();
        for (offset, len) in walk() {
            let Staging { slots, stream, .. } = &mut staging;
            // SAFETY: the slot is not read, and `t` not written, before the synchronisation.
            unsafe { stream.start_to_host(&t, offset, &mut slots[0].send, len) };
            stream.synchronize();
        }
        let spans = staging_trace::stop();
        copies.extend(
            spans
                .iter()
                .filter(|s| s.track == COPIER)
                .map(|s| s.end - s.start),
        );
        for (offset, len) in walk() {
            world.barrier();
            let start = Instant::now();
            // The allreduce as ex 5.6 calls it (immediate, then wait: Open MPI may
            // choose another algorithm for the blocking call).
            mpi::request::scope(|scope| {
                world
                    .immediate_all_reduce_into(
                        scope,
                        &send[..len],
                        &mut recv[..len],
                        SystemOperation::sum(),
                    )
                    .wait();
            });
            reduces.push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            to_device(&mut back, offset, &recv[..len]);
            backs.push(start.elapsed().as_secs_f64());
        }
    }
    let slowest = |x: f64| Timing::over_ranks(world, x).max;
    let alone = Stages {
        copy: slowest(median(copies)),
        allreduce: slowest(median(reduces)),
        back: slowest(median(backs)),
    };
    let typical = median_of(&inside, RANK, "allreduce");
    let stalls = slowest(median(stalled));
    let inside = Stages {
        copy: slowest(median_of(&inside, COPIER, "copy")),
        allreduce: slowest(typical),
        back: slowest(median_of(&inside, RANK, "copy back")),
    };
    let overlap = Overlap {
        alone,
        inside,
        stalls,
        chunks,
        copies: Copies::on(device),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn o(copies: Copies) -> Overlap {
        let s = Stages {
            copy: 2.0,
            allreduce: 3.0,
            back: 1.0,
        };
        Overlap {
            alone: s,
            inside: s,
            stalls: 0.0,
            chunks: 4,
            copies,
        }
    }

    #[test]
    fn the_copy_back_hides_the_copy_on_a_thread_and_not_on_one_stream() {
        // fill 2, three turns, drain 3 + 1
        assert_eq!(o(Copies::ThreadBeside).model(), 2.0 + 3.0 * 4.0 + 4.0);
        assert_eq!(o(Copies::OneStream).model(), 2.0 + 3.0 * (3.0 + 1.0) + 4.0);
        let mut slow_copy = o(Copies::ThreadBeside);
        slow_copy.alone.copy = 5.0; // now the copy decides every turn
        assert_eq!(slow_copy.model(), 5.0 + 3.0 * 5.0 + 4.0);
        let mut one = slow_copy;
        one.copies = Copies::OneStream;
        assert_eq!(one.model(), 5.0 + 3.0 * 6.0 + 4.0);
    }
}
