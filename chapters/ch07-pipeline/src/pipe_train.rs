//! Given: the pipeline trainer, assembled from the chapter's pieces.
//!
//! Start: the grid (ex 7.6) gives this rank its pipeline and its stage; the stage builds
//! its blocks (an even split, `toolkit::split::block_range`), initialised from the seed so
//! that every cut starts from the same model, or resumes them from its checkpoint. Each
//! step: every rank draws the same batch, its replica takes its rows, cut into `m`
//! micro-batches; the executor (ex 7.5) runs this stage's operations of the schedule
//! (`choose::schedule_for`), moving tensors with ex 7.2's transfer; the stage's gradients
//! are averaged over the replicas (ex 7.6); the optimizer steps.

use crate::addition::micro_batches;
use crate::executor::run_ops;
use crate::grid::Grid;
use crate::node_link::LinkGuard;
use crate::optim::{Optimizer, Rule};
use crate::pipe_config::{PipeConfig, TrainSchedule};
use crate::plan::Action;
use crate::spans::Timeline;
use crate::stage_model::StageModel;
use crate::train_loop::{self, PipelineRun};
use crate::wire::{Transfer, WireElem};
use crate::{choose, pipe_ckpt};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};
use trainer_kit::cli::DeviceChoice;

/// Ex 7.2's pair, the transfer the trainer runs with (`E`s on the wire).
pub fn learner_transfer<E: WireElem>() -> Transfer<E> {
    Transfer {
        send: crate::transfer::send_tensor::<E>,
        recv: crate::transfer::recv_tensor::<E>,
    }
}

/// One rank's share of a DP x PP training run; `E` (f32 or f64) is `cfg.shape.dtype`.
pub struct PipeTrainer<'c, E: WireElem = f64> {
    pub cfg: PipeConfig,
    pub world: &'c SimpleCommunicator,
    pub grid: Grid,
    pub stage: StageModel,
    pub opt: Optimizer,
    /// This stage's operations in one step.
    pub ops: Vec<Action>,
    pub io: Transfer<E>,
    /// The node-local link of `--transport shm|ipc` (`io` is then its pair).
    pub link: Option<LinkGuard>,
    /// Steps taken.
    pub step: u64,
    /// The last step's spans on this rank.
    pub trace: Timeline,
    /// The last step's wall time (from the barrier that starts it) and bubble share.
    pub wall: f64,
    pub bubble: f64,
}

/// The device of this rank: the GPU of its local rank with `cuda`, else the CPU; sets
/// LibTorch's threads to the cores this rank may use (the trainer kit's placement; the
/// lab passes `--device` and `--threads` to `trainer_kit::place::place` itself).
pub fn place(world: &SimpleCommunicator, cuda: bool) -> Device {
    let choice = if cuda {
        DeviceChoice::Cuda
    } else {
        DeviceChoice::Cpu
    };
    trainer_kit::place::place(world, choice, None).device
}

impl<'c, E: WireElem> PipeTrainer<'c, E> {
    // ANCHOR: start
    /// Builds this rank's stage of the model on `device`; `cfg` was checked; `io` moves `E`s.
    pub fn new(
        world: &'c SimpleCommunicator,
        cfg: PipeConfig,
        io: Transfer<E>,
        device: Device,
    ) -> Result<Self, String> {
        let (pp, grid) = train_loop::grid_for::<E>(world, &cfg)?;
        let blocks = toolkit::split::block_range(cfg.shape.depth, pp, grid.stage);
        let mut stage = StageModel::new(
            cfg.shape,
            blocks,
            grid.stage == 0,
            grid.stage + 1 == pp,
            cfg.common.seed,
            device,
        );
        stage.recompute = cfg.recompute;
        let rule = match cfg.sgd {
            true => Rule::Sgd { lr: cfg.common.lr },
            false => Rule::Adam { lr: cfg.common.lr },
        };
        let opt = Optimizer::new(rule, &stage.params);
        let TrainSchedule::Stages(kind) = cfg.schedule else {
            return Err(format!("{:?} runs in chunked_train", cfg.schedule));
        };
        let ops = choose::schedule_for(kind, pp, cfg.micro)[grid.stage].clone();
        let link = crate::transport::open::<E>(world, &grid, &stage, &cfg)?;
        let io = match link {
            Some(_) => crate::transport::transfer::<E>(),
            None => io,
        };
        let mut t = PipeTrainer {
            cfg,
            world,
            grid,
            stage,
            opt,
            ops,
            io,
            link,
            step: 0,
            trace: Timeline::new(),
            wall: 0.0,
            bubble: 0.0,
        };
        if t.cfg.common.resume {
            let dir = t
                .cfg
                .common
                .checkpoint
                .clone()
                .expect("checked by pipe_config::check");
            let file = pipe_ckpt::path(&dir, t.grid.stage);
            let mut named = t.state();
            let model = pipe_ckpt::model_name(&t.cfg.shape);
            t.step = pipe_ckpt::load(&file, &model, t.grid.stage, pp, &mut named)
                .map_err(|e| format!("--resume: {e}"))?;
            t.opt.t = t.step;
        }
        Ok(t)
    }
    // ANCHOR_END: start

    /// Parameters and optimizer state, named (what a checkpoint holds; shallow clones).
    fn state(&self) -> Vec<(String, Tensor)> {
        pipe_ckpt::state(&self.stage, &self.opt)
    }

    // ANCHOR: step
    /// One training step; returns the batch's mean loss, averaged over the replicas (the
    /// same on every rank).
    pub fn train_step(&mut self) -> Result<f64, String> {
        let c = &self.cfg;
        let (x, y) = c
            .shape
            .task
            .train_batch(c.common.seed, self.step, c.common.batch);
        let rows = toolkit::split::block_range(c.common.batch, c.dp, self.grid.replica);
        let (x, y) = (
            x.narrow(0, rows.start as i64, rows.len() as i64),
            y.narrow(0, rows.start as i64, rows.len() as i64),
        );
        let batch = micro_batches(&x, &y, c.micro, self.stage.device);
        self.stage.zero_grad();
        self.world.barrier(); // every stage starts the step together: the bubble is measurable
        self.trace.restart();
        let loss = run_ops(
            &self.grid.pipeline,
            &self.ops,
            &self.stage,
            &batch,
            self.io,
            &mut self.trace,
        )?;
        if self.link.is_some() {
            crate::node_link::flush(&self.grid.pipeline); // every ack taken: nothing in flight
        }
        self.wall = self.trace.now();
        self.bubble = 1.0 - self.trace.busy() / self.wall.max(1e-12);
        let mut grads = self.stage.grads();
        train_loop::sync_replicas(&self.grid, &mut grads, &mut self.trace);
        self.opt.step(&mut self.stage.params, &grads);
        self.step += 1;
        self.maybe_die();
        self.maybe_checkpoint()?;
        let mut sum = 0.0;
        self.world
            .all_reduce_into(&loss, &mut sum, SystemOperation::sum());
        Ok(sum / self.cfg.dp as f64)
    }
    // ANCHOR_END: step

    /// Exact-match accuracy (%) on `n` held-out problems, through the pipeline (no
    /// gradients); the same on every rank.
    pub fn evaluate(&self, n: usize) -> f64 {
        let stages = [&self.stage];
        train_loop::evaluate::<E>(self.world, &self.grid, &self.cfg, &stages, n)
    }

    /// Trains to `cfg.steps` ([`train_loop::fit`]); returns the last held-out accuracy.
    pub fn fit(&mut self) -> Result<f64, String> {
        train_loop::fit(self)
    }

    /// Every stage's spans of the last step, on world rank 0 of replica 0 (`None`
    /// elsewhere).
    pub fn gather_trace(&self) -> Option<Vec<Vec<crate::spans::Span>>> {
        train_loop::gather_trace(&self.grid, &self.trace)
    }

    /// Fault injection for the tests: `CH07_KILL_RANK=r CH07_KILL_AT_STEP=n` kills world
    /// rank r (SIGKILL, no goodbye) when it reaches step n (the trainer kit's).
    fn maybe_die(&self) {
        trainer_kit::fault::maybe_die("CH07", self.world.rank(), self.step);
    }

    /// Replica 0's stages each save their file every `cfg.every` steps.
    fn maybe_checkpoint(&self) -> Result<(), String> {
        match &self.cfg.common.checkpoint {
            Some(dir)
                if self.grid.replica == 0 && self.step.is_multiple_of(self.cfg.common.every) =>
            {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                let file = pipe_ckpt::path(dir, self.grid.stage);
                pipe_ckpt::save(
                    &file,
                    &pipe_ckpt::model_name(&self.cfg.shape),
                    self.step,
                    self.grid.stage,
                    self.grid.pp,
                    &self.state(),
                )
                .map_err(|e| format!("cannot save {}: {e}", file.display()))
            }
            _ => Ok(()),
        }
    }
}

impl<E: WireElem> PipelineRun for PipeTrainer<'_, E> {
    train_loop::run_fields!();
    fn stages(&self) -> Vec<&StageModel> {
        vec![&self.stage]
    }
    fn train_step(&mut self) -> Result<f64, String> {
        PipeTrainer::train_step(self)
    }
    fn evaluate(&self, n: usize) -> f64 {
        PipeTrainer::evaluate(self, n)
    }
}
