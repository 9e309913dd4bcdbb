//! Given: chapter 9's GPT with a fourth axis, context parallelism: CP x DP x TP x PP.
//!
//! `ranks = cp · dp · tp · pp`, placed in Megatron-LM's order `tp-cp-dp-pp`: TP innermost
//! (consecutive ranks), then CP, then DP, then PP outermost. Rank `g` holds CP position
//! `(g / tp) % cp`. The ranks at one CP position form a DP x TP x PP grid of their own,
//! chapter 9's [`Grid`] built on them ([`CpGrid::grid`]): its TP allreduces, pipeline
//! messages and embedding group never leave the tokens they share. The `cp` ranks that
//! differ only in their CP position form the CP group, over which attention runs (ring,
//! zig-zag ring or Ulysses: [`crate::context::CpContext`]); every rank holds `seq / cp`
//! tokens of each of its replica's sequences.
//!
//! The gradients: each CP rank's loss is the mean over its own tokens, and attention's
//! backward has already sent every rank's share of dK and dV home, so the gradient of the
//! replica's mean loss is the average of its CP ranks' gradients; with the replicas, the
//! average over the `dp · cp` ranks that hold the same shard (the data group,
//! [`CpGrid::data`]): one allreduce, the one chapter 9 made over DP alone. The model is
//! the same on every CP rank, so a checkpoint is written by the ranks at CP position 0
//! (chapter 9's format: whole tensors by name) and resumes at any CP.

use crate::context::CpContext;
use ch09::corpus::Corpus;
use ch09::gpt_ckpt_state::Checkpointed;
use ch09::gpt_lab::LabTrainer;
use ch09::grid::{Grid, Layout};
use ch09::step_trace::Axis;
use ch09::tp::Tp;
use ch09::train::StepStats;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use tch::Tensor;

/// The sizes of the four axes: `cp` CP ranks, each position a chapter-9 [`Layout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpLayout {
    pub cp: usize,
    pub grid: Layout,
}

impl CpLayout {
    /// The ranks of the whole job.
    pub fn ranks(&self) -> usize {
        self.cp * self.grid.ranks()
    }

    /// World rank `g`'s CP position (TP innermost, then CP).
    pub fn cp_of(&self, g: usize) -> usize {
        (g / self.grid.tp) % self.cp
    }

    /// World rank `g`'s rank in the chapter-9 grid of its CP position.
    pub fn grid_rank(&self, g: usize) -> usize {
        let t = self.grid.tp;
        (g / (t * self.cp)) * t + g % t
    }
}

/// This rank's place on the four axes and its groups.
pub struct CpGrid {
    pub layout: CpLayout,
    /// This rank's CP position, `0..cp`: its tokens are the `cp_rank`-th part.
    pub cp_rank: usize,
    /// The ranks at this rank's CP position (ranked as their chapter-9 grid).
    pub position: SimpleCommunicator,
    /// Chapter 9's DP x TP x PP grid over `position`.
    pub grid: Grid,
    /// The `cp` ranks of this rank's replica, shard and stage (rank c holds part c).
    pub cp: SimpleCommunicator,
    /// The `dp · cp` ranks that hold this rank's shard of this stage: the gradients'
    /// average.
    pub data: SimpleCommunicator,
}

impl CpGrid {
    /// Splits `world` (`layout.ranks()` ranks) into the groups. Collective over `world`.
    pub fn new(world: &SimpleCommunicator, layout: CpLayout) -> Self {
        assert_eq!(world.size() as usize, layout.ranks(), "a checked layout");
        let g = world.rank() as usize;
        let (cp_rank, inner) = (layout.cp_of(g), layout.grid_rank(g));
        let split = |color: usize, key: usize| {
            let color = Color::with_value(color as i32);
            let comm = world.split_by_color_with_key(color, key as i32);
            comm.expect("every rank has a color")
        };
        let position = split(cp_rank, inner);
        let grid = Grid::new(&position, layout.grid);
        let cp = split(inner, cp_rank);
        let (me, t) = (grid.me, layout.grid.tp);
        let data = split(me.pp * t + me.tp, me.dp * layout.cp + cp_rank);
        CpGrid {
            layout,
            cp_rank,
            position,
            grid,
            cp,
            data,
        }
    }

    /// Chapter 9's TP group of this grid, its model's sequence split by `context`.
    pub fn tp<'g>(&'g self, context: &'g CpContext<'g>) -> Tp<'g> {
        Tp::new(&self.grid.tp).with_context(context)
    }

    /// The data group as the trainers' "DP" group: their one gradient allreduce and their
    /// mean of the loss run over the `dp · cp` ranks.
    pub fn data_group(&self) -> Tp<'_> {
        Tp::on(&self.data, Axis::Dp)
    }
}

/// A chapter-9 trainer ([`ch09::train::GridTrainer`] or
/// [`ch09::pipeline::PipeTrainer`]) whose TP group carries the CP context and whose
/// DP group is the data group; chapter 9's lab loop runs it as it is.
pub struct CpTrainer<'g, T> {
    pub inner: T,
    pub grid: &'g CpGrid,
}

impl<T: LabTrainer + Checkpointed> LabTrainer for CpTrainer<'_, T> {
    fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats {
        self.inner.step(corpus, seed, step)
    }
    fn mean_over_replicas(&self, loss: f64) -> f64 {
        self.inner.mean_over_replicas(loss)
    }
    fn shape(&self) -> (usize, usize, usize, usize) {
        self.inner.shape()
    }
    fn loss_only(&self, x: &Tensor, y: &Tensor) -> f64 {
        self.inner.loss_only(x, y)
    }
    fn layout(&self) -> Layout {
        self.inner.layout()
    }
    /// Written by CP position 0 alone (the others hold the same numbers); every rank of
    /// `world` returns the same verdict.
    fn save(
        &self,
        world: &SimpleCommunicator,
        dir: &std::path::Path,
        step: u64,
    ) -> Result<(), String> {
        let mine = match self.grid.cp_rank {
            0 => self.inner.save(&self.grid.position, dir, step),
            _ => Ok(()),
        };
        toolkit::lockstep::agree(world, mine)
    }
}
