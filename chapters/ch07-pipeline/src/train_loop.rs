//! Given: what both pipeline trainers share: the training loop with its progress lines,
//! the held-out evaluation through a rank's stages, and the gathering of one step's
//! timeline. [`crate::pipe_train`] holds one stage per rank (GPipe, 1F1B);
//! [`crate::chunked_train`] holds `v` chunks per rank (interleaved 1F1B, ZB-H1).
//!
//! Used by the `pipeline` lab (`make run CH=07 SOLUTION=1`).

use crate::addition::exact_matches;
use crate::grid::{allreduce_mean, make_grid, Grid};
use crate::pipe_config::PipeConfig;
use crate::plan::rank_of;
use crate::spans::{Phase, Span, Timeline};
use crate::stage_model::StageModel;
use crate::wire::{self, WireElem};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tch::{Device, Tensor};

/// One rank's share of a pipeline training run, as the loop and the lab see it.
pub trait PipelineRun {
    /// The run's settings.
    fn cfg(&self) -> &PipeConfig;
    /// Every rank of the run.
    fn world(&self) -> &SimpleCommunicator;
    /// This rank's place in the DP x PP grid.
    fn grid(&self) -> &Grid;
    /// Steps taken.
    fn steps_taken(&self) -> u64;
    /// This rank's stages, in the order of the model (one, or its `v` chunks).
    fn stages(&self) -> Vec<&StageModel>;
    /// The last step's spans on this rank.
    fn trace(&self) -> &Timeline;
    /// The last step's bubble share on this rank.
    fn bubble(&self) -> f64;
    /// One training step; the batch's mean loss (the same on every rank).
    fn train_step(&mut self) -> Result<f64, String>;
    /// Exact-match accuracy (%) on `n` held-out problems (the same on every rank).
    fn evaluate(&self, n: usize) -> f64;
}

/// The accessors of [`PipelineRun`] for a trainer with the fields `cfg`, `world`,
/// `grid`, `step`, `trace` and `bubble` (both trainers have them).
macro_rules! run_fields {
    () => {
        fn cfg(&self) -> &$crate::pipe_config::PipeConfig {
            &self.cfg
        }
        fn world(&self) -> &::mpi::topology::SimpleCommunicator {
            self.world
        }
        fn grid(&self) -> &$crate::grid::Grid {
            &self.grid
        }
        fn steps_taken(&self) -> u64 {
            self.step
        }
        fn trace(&self) -> &$crate::spans::Timeline {
            &self.trace
        }
        fn bubble(&self) -> f64 {
            self.bubble
        }
    };
}
pub(crate) use run_fields;

/// The checks and the grid every trainer starts with: `E` must move `cfg`'s dtype, and
/// the world is cut into `cfg.dp` pipelines of `pp` = ranks / dp stages (returned with it).
pub fn grid_for<E: WireElem>(
    world: &SimpleCommunicator,
    cfg: &PipeConfig,
) -> Result<(usize, Grid), String> {
    wire::moves::<E>(cfg.shape.dtype)?;
    let pp = world.size() as usize / cfg.dp;
    Ok((pp, make_grid(world, cfg.dp, pp)?))
}

/// Trains `t` to `cfg.steps`, printing a progress line every `cfg.report` steps on world
/// rank 0 (unless quiet); returns the last held-out accuracy.
pub fn fit(t: &mut impl PipelineRun) -> Result<f64, String> {
    let root = t.world().rank() == 0;
    let (quiet, batch, report, steps) = {
        let c = t.cfg();
        (c.common.quiet, c.common.batch, c.report, c.steps)
    };
    let mut acc = t.evaluate(1000);
    let (mut since, mut samples, mut bubble_sum, mut n) = (Instant::now(), 0usize, 0.0, 0u64);
    if root && !quiet {
        println!(
            "{:>6}  {:>8}  {:>9}  {:>10}  {:>7}",
            "step", "loss", "accuracy", "samples/s", "bubble"
        );
    }
    while t.steps_taken() < steps {
        let loss = t.train_step()?;
        let mut b = 0.0;
        t.world()
            .all_reduce_into(&t.bubble(), &mut b, SystemOperation::sum());
        bubble_sum += b / t.world().size() as f64;
        (samples, n) = (samples + batch, n + 1);
        let step = t.steps_taken();
        if step.is_multiple_of(report) || step == steps {
            let rate = samples as f64 / since.elapsed().as_secs_f64();
            acc = t.evaluate(1000);
            if root && !quiet {
                println!(
                    "{step:>6}  {loss:>8.4}  {acc:>8.1}%  {rate:>10.0}  {:>6.1}%",
                    100.0 * bubble_sum / n as f64
                );
            }
            (since, samples, bubble_sum, n) = (Instant::now(), 0, 0.0, 0);
        }
    }
    Ok(acc)
}

/// Exact-match accuracy (%) on `n` held-out problems through the pipeline, `stages` being
/// this rank's (stage `c * p + r` for its chunk `c`, `p` = the pipeline's size), with no
/// gradients and plain blocking sends in the model's order (a chain has no cycle; with
/// one rank the chunks pass their output on in memory); the same on every rank.
pub fn evaluate<E: WireElem>(
    world: &SimpleCommunicator,
    grid: &Grid,
    cfg: &PipeConfig,
    stages: &[&StageModel],
    n: usize,
) -> f64 {
    let (pipe, r, p) = (&grid.pipeline, grid.stage, grid.pp);
    let total = stages.len() * p;
    let (x, y) = cfg.shape.task.test_set(cfg.common.seed, n);
    let mut right = 0i64;
    for (xc, yc) in x.split(256, 0).iter().zip(y.split(256, 0)) {
        let rows = xc.size()[0];
        let mut carried: Option<Tensor> = None;
        for (c, stage) in stages.iter().enumerate() {
            let s = c * p + r;
            let input = match (s, carried.take()) {
                (0, _) => xc.to_device(stage.device),
                (_, Some(x)) => x,
                _ => {
                    let from = rank_of(s - 1, p) as i32;
                    let (v, _) = pipe.process_at_rank(from).receive_vec::<E>();
                    wire::copy_in(&v, &stage.in_shape(rows), stage.device)
                }
            };
            let out = tch::no_grad(|| stage.forward(&input));
            if s + 1 == total {
                right += exact_matches(&out.to_device(Device::Cpu), &yc);
            } else if p == 1 {
                carried = Some(out);
            } else {
                let mut buf = Vec::<E>::new();
                wire::copy_out(&out, &mut buf);
                let to = rank_of(s + 1, p) as i32;
                pipe.process_at_rank(to).send(&buf[..]);
            }
        }
    }
    let counts = r + 1 == p && grid.replica == 0; // one last stage counts, once
    let mine = if counts { right as f64 } else { 0.0 };
    let mut all = 0.0;
    world.all_reduce_into(&mine, &mut all, SystemOperation::sum());
    100.0 * all / n as f64
}

/// Averages one stage's (or chunk's) gradients over its data-parallel replicas (ex 7.6's
/// allreduce), recorded on `trace` as a [`Phase::Sync`] span when there are replicas: it
/// starts as soon as this rank's own last backward is done, while the stages before it
/// may still be computing theirs (the `--dp 2 --trace` run on the trainer page shows it).
pub fn sync_replicas(grid: &Grid, grads: &mut [Tensor], trace: &mut Timeline) {
    let start = Instant::now();
    allreduce_mean(&grid.replicas, grads);
    if grid.dp > 1 {
        trace.record(Phase::Sync, 0, start);
    }
}

/// Every rank's spans of the last step, on world rank 0 of replica 0 (`None` elsewhere):
/// each rank of a pipeline sends its own to the pipeline's rank 0.
pub fn gather_trace(grid: &Grid, trace: &Timeline) -> Option<Vec<Vec<Span>>> {
    let pipe = &grid.pipeline;
    let mine = trace.flat();
    if grid.stage > 0 {
        pipe.process_at_rank(0).send(&mine[..]);
        return None;
    }
    let mut all = vec![Timeline::from_flat(&mine)];
    for s in 1..grid.pp {
        let (v, _) = pipe.process_at_rank(s as i32).receive_vec::<f64>();
        all.push(Timeline::from_flat(&v));
    }
    (grid.replica == 0).then_some(all)
}
