//! Given: one training step of the GPT on a DP x TP grid, and the same step in one
//! process.
//!
//! On the grid, a rank draws its replica's rows of the global batch
//! ([`crate::corpus::Corpus::batch`]), runs the forward and backward of its shard (the
//! tensor-parallel group's allreduces inside), then averages the gradients of its shard
//! over its DP group: one allreduce of all of them, flattened into one buffer, divided by
//! dp (each replica's loss is the mean over its own tokens, and the replicas are the same
//! size, so the average of their gradients is the gradient of the global batch's mean).
//! Adam then updates the shard: every replica applies the same update to the same
//! numbers, so the shards stay equal across replicas without ever being sent.

use crate::corpus::{Corpus, Split};
use crate::gpt::{loss_and_backward, reference_loss, GptConfig, GptParams};
use crate::grid::Grid;
use crate::step_trace::Axis;
use crate::tp::Tp;
use tch::{Device, Kind, Tensor};
use trainer_kit::optim::{Optimizer, Rule};

/// What one step did on this rank.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// The mean loss over this replica's tokens (the same on every rank of its group).
    pub loss: f64,
    /// Allreduces on the TP group, and the bytes this rank passed to them.
    pub tp_calls: (usize, i64),
    /// Allreduces on the DP group, and their bytes.
    pub dp_calls: (usize, i64),
    /// Sends to the other stages (activations and gradients), and their bytes: none at
    /// one stage ([`crate::pipeline`]).
    pub pp_sends: (usize, i64),
    /// Allreduces on the embedding group, and their bytes: none at one stage.
    pub embedding_calls: (usize, i64),
}

/// This rank's shard of the model, its optimizer, and the groups it trains on.
pub struct GridTrainer<'g> {
    pub grid: &'g Grid,
    pub tp: Tp<'g>,
    pub dp: Tp<'g>,
    pub cfg: GptConfig,
    pub params: GptParams,
    /// Adam over `params.named()`'s tensors (its m, v and step count: the checkpoints').
    pub opt: Optimizer,
    /// Another sum over the DP group than its MPI_Allreduce, if any ([`DpSum`]).
    pub dp_sum: Option<DpSum<'g>>,
}

/// A sum over the DP group of one flat f32 buffer (all of the shard's gradients), in
/// place, in the replicas' DP group order: chapter 12 plugs its compressed sums in here
/// ([`GridTrainer::with_dp_sum`]); the trainer then divides by the replicas.
pub type DpSum<'g> = Box<dyn Fn(&mut [f32]) + 'g>;

// ANCHOR: replica_rows
/// The global batch's rows replica `d` of `dp` trains on (`dp` divides `global`).
pub fn replica_rows(global: usize, dp: usize, d: usize) -> std::ops::Range<usize> {
    let per = global / dp;
    d * per..(d + 1) * per
}
// ANCHOR_END: replica_rows

/// Moves every tensor of `named` to `device` in place: each stays the same leaf (its
/// gradient required), and every handle to it sees the move.
pub fn move_to(named: &[(String, &Tensor)], device: Device) {
    for (_, t) in named {
        let moved = t.detach().to_device(device);
        t.shallow_clone().set_data(&moved);
    }
}

/// Averages `grads` (a shard's `.grad()`s, in place) over the DP group `dp`: one
/// allreduce of all of them flattened into one buffer, divided by the replicas.
pub fn average_over_replicas(dp: &Tp, grads: &[Tensor]) {
    let flat = Tensor::cat(&grads.iter().map(|g| g.view([-1])).collect::<Vec<_>>(), 0);
    put_back(&(dp.sum(&flat) / dp.size() as f64), grads);
}

/// [`average_over_replicas`] with `sum` instead of the DP group's MPI_Allreduce: the
/// gradients flattened into one f32 host buffer, summed by `sum`, divided by `replicas`,
/// and put back in their kind and on their device.
pub fn average_with(sum: &DpSum, replicas: usize, grads: &[Tensor]) {
    let flat = Tensor::cat(&grads.iter().map(|g| g.view([-1])).collect::<Vec<_>>(), 0);
    let host = flat.to_device(Device::Cpu).to_kind(Kind::Float);
    let mut buf = Vec::<f32>::try_from(&host).expect("a flat f32 tensor");
    sum(&mut buf);
    let summed = Tensor::from_slice(&buf)
        .to_kind(flat.kind())
        .to_device(flat.device());
    put_back(&(summed / replicas as f64), grads);
}

/// Copies the flat `mean` into `grads` (the `.grad()`s themselves), in order.
fn put_back(mean: &Tensor, grads: &[Tensor]) {
    let mut at = 0;
    for g in grads {
        let n = g.numel() as i64;
        let mut into = g.shallow_clone(); // the .grad() itself: averaged in place
        tch::no_grad(|| into.copy_(&mean.narrow(0, at, n).view_as(g)));
        at += n;
    }
}

impl<'g> GridTrainer<'g> {
    /// This rank's shard of the model drawn from `seed` in `kind` (`cfg.block.batch`:
    /// one replica's batch), with Adam at `lr`.
    pub fn new(
        grid: &'g Grid,
        cfg: GptConfig,
        kind: Kind,
        seed: i64,
        lr: f64,
    ) -> Result<Self, String> {
        Self::on(grid, cfg, kind, seed, lr, Device::Cpu)
    }

    /// [`GridTrainer::new`] on `device`: the shard is drawn on the CPU (the same numbers
    /// wherever it trains), then moved, so its parameters, their gradients, the
    /// activations and Adam's m and v live there; the collectives stage through host
    /// memory (the `ch07::wire` copies of [`crate::tp`] are device-aware).
    pub fn on(
        grid: &'g Grid,
        cfg: GptConfig,
        kind: Kind,
        seed: i64,
        lr: f64,
        device: Device,
    ) -> Result<Self, String> {
        let (tp, dp) = (Tp::new(&grid.tp), Tp::on(&grid.dp, Axis::Dp));
        let params = GptParams::whole(&cfg, kind, seed).shard(&cfg, tp.size(), tp.rank())?;
        move_to(&params.named(), device);
        let opt = Optimizer::new(Rule::Adam { lr }, &params.tensors());
        Ok(GridTrainer {
            grid,
            tp,
            dp,
            cfg,
            params,
            opt,
            dp_sum: None,
        })
    }

    /// This trainer with `sum` as the DP group's gradient sum instead of its
    /// MPI_Allreduce (every rank of the group must plug in the same kind of sum).
    pub fn with_dp_sum(mut self, sum: DpSum<'g>) -> Self {
        self.dp_sum = Some(sum);
        self
    }

    /// The global batch (over the replicas).
    pub fn global_batch(&self) -> usize {
        self.cfg.block.batch * self.grid.layout.dp
    }

    /// Where the shard lives (its parameters, gradients and Adam's state).
    pub fn device(&self) -> Device {
        self.params.tok.device()
    }

    /// Step `step` on the batch drawn from `seed`; the shard's averaged gradients are
    /// left in its `.grad()` (the checks read them), then Adam updates it.
    pub fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats {
        let (x, y) = replica_batch(corpus, self.grid, &self.cfg, seed, step);
        let (x, y) = (x.to_device(self.device()), y.to_device(self.device()));
        let mut tensors = self.params.tensors();
        zero_grads(&mut tensors);
        toolkit::tally::start();
        let loss = loss_and_backward(&self.tp, &self.params, &self.cfg, &x, &y);
        let tp_log = toolkit::tally::stop();
        let grads: Vec<Tensor> = tensors.iter().map(Tensor::grad).collect();
        toolkit::tally::start();
        match &self.dp_sum {
            Some(sum) => average_with(sum, self.dp.size(), &grads),
            None => average_over_replicas(&self.dp, &grads),
        }
        let dp_log = toolkit::tally::stop();
        self.opt.step(&mut tensors, &grads);
        StepStats {
            loss,
            tp_calls: toolkit::tally::count(&tp_log, "MPI_Allreduce"),
            dp_calls: toolkit::tally::count(&dp_log, "MPI_Allreduce"),
            ..StepStats::default()
        }
    }

    /// `loss` (one replica's) averaged over the DP group: the global batch's loss.
    pub fn mean_over_replicas(&self, loss: f64) -> f64 {
        mean_over(&self.dp, loss)
    }
}

/// `loss` averaged over the DP group `dp`.
pub fn mean_over(dp: &Tp, loss: f64) -> f64 {
    let t = Tensor::from_slice(&[loss]);
    dp.sum(&t).double_value(&[0]) / dp.size() as f64
}

/// This rank's replica's rows of step `step`'s training batch (`cfg.block.batch` a
/// replica), drawn from `seed`: inputs and targets.
pub fn replica_batch(
    corpus: &Corpus,
    grid: &Grid,
    cfg: &GptConfig,
    seed: u64,
    step: u64,
) -> (Tensor, Tensor) {
    let global = cfg.block.batch * grid.layout.dp;
    let rows = replica_rows(global, grid.layout.dp, grid.me.dp);
    corpus.batch(Split::Train, seed, step, global, cfg.block.seq, rows)
}

/// Zeros the gradients of `tensors` before a step's backward.
pub fn zero_grads(tensors: &mut [Tensor]) {
    for t in tensors.iter_mut() {
        t.zero_grad();
    }
}

/// The same training in one process: the whole model, LibTorch's autograd alone, the
/// whole global batch, Adam at `lr`.
pub struct OneProcess {
    pub cfg: GptConfig,
    pub params: GptParams,
    opt: Optimizer,
}

impl OneProcess {
    /// The whole model from `seed` in `kind`; `cfg.block.batch` is the global batch.
    pub fn new(cfg: GptConfig, kind: Kind, seed: i64, lr: f64) -> Self {
        let params = GptParams::whole(&cfg, kind, seed);
        let opt = Optimizer::new(Rule::Adam { lr }, &params.tensors());
        OneProcess { cfg, params, opt }
    }

    /// Step `step` on the batch drawn from `seed`: its loss; the gradients stay in the
    /// parameters' `.grad()`.
    pub fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> f64 {
        let (b, s) = (self.cfg.block.batch, self.cfg.block.seq);
        let (x, y) = corpus.batch(Split::Train, seed, step, b, s, 0..b);
        let mut tensors = self.params.tensors();
        for t in tensors.iter_mut() {
            t.zero_grad();
        }
        let loss = reference_loss(&self.params, &self.cfg, &x, &y);
        loss.backward();
        self.opt.step_on_grads(&mut tensors);
        loss.double_value(&[])
    }
}
