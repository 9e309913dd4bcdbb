//! Given: training the MoE layer on the generated task, over the ranks (expert parallel,
//! each rank its own tokens) or in one process holding every rank's tokens and every
//! expert, which the equivalence check compares step by step.
//!
//! The task: tokens drawn around one cluster per expert (`task::Task`), and for each
//! cluster a target linear map `M_c`; the layer must output `M_c·x` for a token of cluster
//! `c`. The router is a linear map `logits = x·R` (`R` is `hidden × E`), replicated on
//! every rank like a data-parallel model: its gradients are summed over the ranks before
//! the step. An expert's gradient needs no sum: the backward exchanges (ex 11.3) bring
//! every token's contribution to the rank that holds it. The loss is the squared error
//! summed over the tokens and divided by all ranks' tokens (so the ranks' losses add up to
//! one process's), plus the balancing loss (ex 11.4). Adam (`trainer_kit::optim`) steps
//! the router and the experts a rank holds.

use crate::backward::backward;
use crate::balance::aux_loss;
use crate::config::{Layout, MoeConfig};
use crate::experts::Experts;
use crate::nets::{tensor_on, values, ExpertNets};
use crate::pass::{forward, one_process};
use crate::routing::Routing;
use crate::task::{Rng, Task};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use tch::{Device, Kind, Tensor};
use trainer_kit::optim::{Optimizer, Rule};

/// What a run trains with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The router's settings.
    pub cfg: MoeConfig,
    /// Floats per token.
    pub hidden: usize,
    /// Tokens per rank per step.
    pub tokens: usize,
    /// α, the balancing loss's weight (0: none).
    pub alpha: f64,
    /// Adam's learning rate.
    pub lr: f64,
    /// The clusters' popularity skew (0: every cluster equally often).
    pub skew: f64,
    /// The seed of the task, the targets and the initial weights.
    pub seed: u64,
    /// The scale of the router's initial entries (normal times this): near 0, its
    /// probabilities start even.
    pub router_scale: f64,
    /// Where the router, the experts, Adam's state and the tokens live; the exchanges and
    /// the allreduces go through host memory either way.
    pub device: Device,
}

/// The layer's parameters on one rank: the router, and the experts it holds.
pub struct Model {
    /// `R`, `hidden × E`, the same on every rank.
    pub router: Tensor,
    /// The experts held.
    pub nets: ExpertNets,
    opt: Optimizer,
}

/// One step's figures, the same on every rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The squared-error loss over all ranks' tokens.
    pub loss: f64,
    /// The balancing loss (its value also when α = 0: `E·Σ f·P`, as if α were 1).
    pub balance: f64,
    /// Per expert, the (token, choice) pairs that chose it, all ranks.
    pub chosen: Vec<u64>,
    /// Per expert, the pairs dropped, all ranks.
    pub dropped: Vec<u64>,
}

impl Model {
    /// The initial model with the experts `held`, on `s.device`: the router's entries
    /// normal times `s.router_scale`, the experts `Experts::linear`, all from the seed.
    pub fn new(s: &Settings, held: Range<usize>) -> Self {
        let (h, e) = (s.hidden, s.cfg.experts);
        let mut rng = Rng::new(s.seed + 3);
        let scale = s.router_scale as f32;
        let r: Vec<f32> = (0..h * e).map(|_| rng.normal() * scale).collect();
        let router = tensor_on(&r, &[h as i64, e as i64], s.device).set_requires_grad(true);
        let nets = ExpertNets::new(&Experts::linear(e, h, s.seed + 1), held, s.device);
        let mut params = vec![router.shallow_clone()];
        params.extend(nets.parameters());
        let opt = Optimizer::new(Rule::Adam { lr: s.lr }, &params);
        Model { router, nets, opt }
    }

    fn params(&self) -> Vec<Tensor> {
        let mut p = vec![self.router.shallow_clone()];
        p.extend(self.nets.parameters());
        p
    }
}

/// Rank `rank`'s tokens at step `step`, on `s.device`: (x, the target `M_c·x` per token).
pub fn batch(s: &Settings, step: usize, rank: usize) -> (Tensor, Tensor) {
    let (h, e) = (s.hidden, s.cfg.experts);
    let task = Task::new(e, h, s.seed);
    let b = task.batch(
        s.tokens,
        s.skew,
        s.seed ^ ((step * 1000 + rank) as u64) << 12,
    );
    let maps = Experts::linear(e, h, s.seed + 5);
    let target: Vec<f32> = b
        .cluster
        .iter()
        .enumerate()
        .flat_map(|(t, &c)| maps.apply(c, &b.x[t * h..(t + 1) * h]))
        .collect();
    let t = s.tokens as i64;
    (
        tensor_on(&b.x, &[t, h as i64], s.device),
        tensor_on(&target, &[t, h as i64], s.device),
    )
}

fn counts(routing: &Routing, e: usize) -> (Vec<u64>, Vec<u64>) {
    let (mut chosen, mut dropped) = (vec![0u64; e], vec![0u64; e]);
    for c in &routing.choices {
        chosen[c.expert] += 1;
        dropped[c.expert] += u64::from(!c.kept);
    }
    (chosen, dropped)
}

fn summed(world: &SimpleCommunicator, mine: &[f64]) -> Vec<f64> {
    let mut all = vec![0.0; mine.len()];
    world.all_reduce_into(mine, &mut all[..], SystemOperation::sum());
    all
}

/// One training step over the ranks of `world` on this rank's batch of step `n`
/// ([`batch`]): [`step_on`].
pub fn step(
    world: &SimpleCommunicator,
    s: &Settings,
    m: &mut Model,
    n: usize,
) -> Result<Report, String> {
    let (x, y) = batch(s, n, world.rank() as usize);
    step_on(world, s, m, &x, &y)
}

/// One training step on this rank's tokens `x` and their targets `y` (`tokens × hidden`,
/// made beforehand: the benchmark times the step without the data): forward, loss,
/// ex 11.3's backward, the router's gradient summed over the ranks, Adam.
pub fn step_on(
    world: &SimpleCommunicator,
    s: &Settings,
    m: &mut Model,
    x: &Tensor,
    y: &Tensor,
) -> Result<Report, String> {
    let e = s.cfg.experts;
    let all_tokens = (s.tokens * world.size() as usize) as f64;
    let logits = x.matmul(&m.router);
    let pass = forward(world, &s.cfg, &m.nets, x, &logits)?;
    let sq = (&pass.out - y).square().sum(Kind::Float) / all_tokens;
    let aux = aux_loss(world, &pass.routing, &logits, 1.0);
    let loss = &sq + &aux * s.alpha;
    backward(world, &pass, &loss);
    let g = values(&crate::nets::grad_or_zeros(&m.router));
    let g: Vec<f32> = summed(world, &g.iter().map(|&v| v as f64).collect::<Vec<_>>())
        .iter()
        .map(|&v| v as f32)
        .collect();
    let mut grads = vec![tensor_on(&g, &m.router.size(), m.router.device())];
    grads.extend(m.nets.parameters().iter().map(crate::nets::grad_or_zeros));
    let mut params = m.params();
    m.opt.step(&mut params, &grads);
    trainer_kit::optim::zero_grads(&mut params);
    let (chosen, dropped) = counts(&pass.routing, e);
    let mut mine: Vec<f64> = chosen.iter().chain(&dropped).map(|&v| v as f64).collect();
    mine.push(values(&sq)[0] as f64);
    let all = summed(world, &mine);
    Ok(Report {
        loss: all[2 * e],
        balance: values(&aux)[0] as f64,
        chosen: all[..e].iter().map(|&v| v as u64).collect(),
        dropped: all[e..2 * e].iter().map(|&v| v as u64).collect(),
    })
}

/// The same step in one process: `ranks` groups of tokens (rank r's batch, routed on its
/// own with its own capacity, as on rank r), every expert local (`m` holds them all), the
/// balancing loss of all groups together (ex 11.4's functions on `MPI_COMM_SELF`).
pub fn step_one_process(s: &Settings, ranks: usize, m: &mut Model, n: usize) -> Result<(), String> {
    let batches: Vec<(Tensor, Tensor)> = (0..ranks).map(|r| batch(s, n, r)).collect();
    step_one_process_on(s, m, &batches).map(|_| ())
}

/// [`step_one_process`] on batches made beforehand (one per rank, `(x, target)`): the
/// squared error and the balancing loss `E·Σ f·P` of the step.
pub fn step_one_process_on(
    s: &Settings,
    m: &mut Model,
    batches: &[(Tensor, Tensor)],
) -> Result<(f64, f64), String> {
    let one = SimpleCommunicator::self_comm();
    let all_tokens = (s.tokens * batches.len()) as f64;
    let mut sq = Tensor::zeros([], (Kind::Float, s.device));
    let (mut logits_all, mut merged) = (vec![], None::<Routing>);
    for (x, y) in batches {
        let logits = x.matmul(&m.router);
        let out = one_process(&s.cfg, &m.nets, x, &logits)?;
        sq += (out - y).square().sum(Kind::Float) / all_tokens;
        let routing = crate::router::route(&s.cfg, &values(&logits))?;
        merged = Some(match merged {
            None => routing,
            Some(mut a) => {
                a.tokens += routing.tokens;
                a.choices.extend(routing.choices);
                a
            }
        });
        logits_all.push(logits);
    }
    let routing = merged.ok_or("at least one batch")?;
    let aux = aux_loss(&one, &routing, &Tensor::cat(&logits_all, 0), 1.0);
    (&sq + &aux * s.alpha).backward();
    let mut params = m.params();
    // An expert no token reached steps on zeros, as on the ranks (`step_on`).
    let grads: Vec<Tensor> = params.iter().map(crate::nets::grad_or_zeros).collect();
    m.opt.step(&mut params, &grads);
    trainer_kit::optim::zero_grads(&mut params);
    Ok((values(&sq)[0] as f64, values(&aux)[0] as f64))
}

/// The experts rank `rank` of `ranks` holds, for [`Model::new`].
pub fn held(s: &Settings, ranks: usize, rank: usize) -> Range<usize> {
    Layout {
        experts: s.cfg.experts,
        ranks,
    }
    .local(rank)
}
