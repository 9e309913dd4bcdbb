//! Given: the pipeline trainer for plans by rank: interleaved 1F1B (ex 7.7, `v` chunks
//! per rank) and ZB-H1 (ex 7.8, each backward split), run by ex 7.9's executor.
//!
//! Start: the grid (ex 7.6) gives this rank its pipeline and its place `r` in it; with
//! `p` ranks per pipeline the blocks are cut evenly into `v * p` stages and the rank holds
//! stages `c * p + r` for `c` in `0..v` (its chunks), each initialised from the seed as
//! in one process, or resumed from its own checkpoint file `DIR/stage-S.ckpt`. Each step:
//! the rank's rows of the batch in `m` micro-batches, its tasks of the plan run by
//! `run_tasks`, every chunk's gradients averaged over the replicas, one optimizer per
//! chunk. Run: `make run CH=07 SOLUTION=1 ARGS="--schedule interleaved --chunks 2"`.

use crate::addition::micro_batches;
use crate::grid::Grid;
use crate::optim::{Optimizer, Rule};
use crate::pipe_ckpt;
use crate::pipe_config::{PipeConfig, TrainSchedule};
use crate::plan::Task;
use crate::rank_schedules::{interleaved, zero_bubble_h1};
use crate::spans::Timeline;
use crate::stage_model::StageModel;
use crate::task_executor::run_tasks;
use crate::train_loop::{self, PipelineRun};
use crate::wire::{Transfer, WireElem};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;

/// One rank's share of a DP x PP run of a plan by rank; `E` is `cfg.shape.dtype`.
pub struct ChunkedTrainer<'c, E: WireElem = f64> {
    pub cfg: PipeConfig,
    pub world: &'c SimpleCommunicator,
    pub grid: Grid,
    /// This rank's chunks: `chunks[c]` is stage `c * p + r` of `v * p`.
    pub chunks: Vec<StageModel>,
    /// One optimizer per chunk.
    pub opts: Vec<Optimizer>,
    /// This rank's tasks in one step.
    pub tasks: Vec<Task>,
    pub io: Transfer<E>,
    /// Steps taken.
    pub step: u64,
    /// The last step's spans on this rank, and its bubble share.
    pub trace: Timeline,
    pub bubble: f64,
}

/// The name a chunked run's checkpoints carry: the model, then the schedule and the
/// chunks per rank, so that a file saved under another plan is refused.
pub fn layout_name(cfg: &PipeConfig) -> String {
    let model = pipe_ckpt::model_name(&cfg.shape);
    match cfg.schedule {
        TrainSchedule::Interleaved => format!(
            "{model}, interleaved 1F1B, {} chunks per rank",
            cfg.chunks()
        ),
        TrainSchedule::ZbH1 => format!("{model}, ZB-H1"),
        TrainSchedule::Stages(kind) => format!("{model}, {kind:?}"),
    }
}

impl<'c, E: WireElem> ChunkedTrainer<'c, E> {
    /// Builds this rank's chunks on `device`; `cfg` was checked; `io` moves `E`s.
    pub fn new(
        world: &'c SimpleCommunicator,
        cfg: PipeConfig,
        io: Transfer<E>,
        device: Device,
    ) -> Result<Self, String> {
        let (pp, grid) = train_loop::grid_for::<E>(world, &cfg)?;
        let (v, m) = (cfg.chunks(), cfg.micro);
        let plan = match cfg.schedule {
            TrainSchedule::Interleaved => interleaved(pp, v, m),
            TrainSchedule::ZbH1 => zero_bubble_h1(pp, m),
            other => return Err(format!("{other:?} runs in pipe_train")),
        };
        let stages = v * pp;
        let chunks: Vec<StageModel> = (0..v)
            .map(|c| {
                let s = c * pp + grid.stage;
                let blocks = toolkit::split::block_range(cfg.shape.depth, stages, s);
                let (first, last) = (s == 0, s + 1 == stages);
                StageModel::new(cfg.shape, blocks, first, last, cfg.common.seed, device)
            })
            .collect();
        let rule = match cfg.sgd {
            true => Rule::Sgd { lr: cfg.common.lr },
            false => Rule::Adam { lr: cfg.common.lr },
        };
        let opts = chunks
            .iter()
            .map(|c| Optimizer::new(rule, &c.params))
            .collect();
        let tasks = plan[grid.stage].clone();
        let mut t = ChunkedTrainer {
            cfg,
            world,
            grid,
            chunks,
            opts,
            tasks,
            io,
            step: 0,
            trace: Timeline::new(),
            bubble: 0.0,
        };
        if t.cfg.common.resume {
            t.resume().map_err(|e| format!("--resume: {e}"))?;
        }
        Ok(t)
    }

    /// The stage of chunk `c`.
    fn stage_of(&self, c: usize) -> usize {
        c * self.grid.pp + self.grid.stage
    }

    /// Loads every chunk from its file; they must all be of the same step.
    fn resume(&mut self) -> Result<(), String> {
        let dir = self
            .cfg
            .common
            .checkpoint
            .clone()
            .expect("checked by pipe_config::check");
        let (model, stages) = (layout_name(&self.cfg), self.chunks.len() * self.grid.pp);
        let mut steps = vec![];
        for c in 0..self.chunks.len() {
            let s = self.stage_of(c);
            let mut named = pipe_ckpt::state(&self.chunks[c], &self.opts[c]);
            let file = pipe_ckpt::path(&dir, s);
            steps.push(pipe_ckpt::load(&file, &model, s, stages, &mut named)?);
        }
        if steps.windows(2).any(|w| w[0] != w[1]) {
            return Err(format!(
                "this rank's chunks were saved at different steps: {steps:?}"
            ));
        }
        self.step = steps[0];
        self.opts.iter_mut().for_each(|o| o.t = self.step);
        Ok(())
    }

    /// One training step; returns the batch's mean loss, averaged over the replicas (the
    /// same on every rank).
    pub fn train_step(&mut self) -> Result<f64, String> {
        let c = &self.cfg;
        let (x, y) = c
            .shape
            .task
            .train_batch(c.common.seed, self.step, c.common.batch);
        let rows = toolkit::split::block_range(c.common.batch, c.dp, self.grid.replica);
        let (start, len) = (rows.start as i64, rows.len() as i64);
        let device = self.chunks[0].device;
        let batch = micro_batches(
            &x.narrow(0, start, len),
            &y.narrow(0, start, len),
            c.micro,
            device,
        );
        self.chunks.iter_mut().for_each(StageModel::zero_grad);
        self.world.barrier(); // every rank starts the step together: the bubble is measurable
        self.trace.restart();
        let pipe = &self.grid.pipeline;
        let loss = run_tasks(
            pipe,
            &self.tasks,
            &self.chunks,
            &batch,
            self.io,
            &mut self.trace,
        )?;
        self.bubble = 1.0 - self.trace.busy() / self.trace.now().max(1e-12);
        for (chunk, opt) in self.chunks.iter_mut().zip(&mut self.opts) {
            let mut grads = chunk.grads();
            train_loop::sync_replicas(&self.grid, &mut grads, &mut self.trace);
            opt.step(&mut chunk.params, &grads);
        }
        self.step += 1;
        trainer_kit::fault::maybe_die("CH07", self.world.rank(), self.step);
        self.maybe_checkpoint()?;
        let mut sum = 0.0;
        self.world
            .all_reduce_into(&loss, &mut sum, SystemOperation::sum());
        Ok(sum / self.cfg.dp as f64)
    }

    /// Replica 0's ranks each save one file per chunk every `cfg.every` steps.
    fn maybe_checkpoint(&self) -> Result<(), String> {
        let Some(dir) = &self.cfg.common.checkpoint else {
            return Ok(());
        };
        if self.grid.replica != 0 || !self.step.is_multiple_of(self.cfg.common.every) {
            return Ok(());
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let (model, stages) = (layout_name(&self.cfg), self.chunks.len() * self.grid.pp);
        for (c, (chunk, opt)) in self.chunks.iter().zip(&self.opts).enumerate() {
            let (s, state) = (self.stage_of(c), pipe_ckpt::state(chunk, opt));
            let file = pipe_ckpt::path(dir, s);
            pipe_ckpt::save(&file, &model, self.step, s, stages, &state)
                .map_err(|e| format!("cannot save {}: {e}", file.display()))?;
        }
        Ok(())
    }
}

impl<E: WireElem> PipelineRun for ChunkedTrainer<'_, E> {
    train_loop::run_fields!();
    fn stages(&self) -> Vec<&StageModel> {
        self.chunks.iter().collect()
    }
    fn train_step(&mut self) -> Result<f64, String> {
        ChunkedTrainer::train_step(self)
    }
    fn evaluate(&self, n: usize) -> f64 {
        let stages = self.stages();
        train_loop::evaluate::<E>(self.world, &self.grid, &self.cfg, &stages, n)
    }
}
