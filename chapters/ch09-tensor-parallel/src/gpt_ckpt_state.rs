//! Given: what a checkpoint reads and writes of a trainer, whichever trainer it is: the
//! DP x TP [`GridTrainer`] (every tensor of its shard) or the DP x TP x PP
//! [`PipeTrainer`] (its stage's tensors only). [`Checkpointed`] names the tensors a rank
//! holds (`GptParams::named`'s names, the same at every layout), Adam's state of each,
//! and the groups the save gathers over; [`crate::gpt_ckpt`] and [`crate::gpt_ckpt_read`]
//! are written against it once.
//!
//! Tests: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_ckpt::` and
//! `--test main gpt_ckpt_pipeline::`.

use crate::gpt::GptConfig;
use crate::grid::Grid;
use crate::pipeline::PipeTrainer;
use crate::tp::Tp;
use crate::train::GridTrainer;
use tch::{Kind, Tensor};
use trainer_kit::optim::Optimizer;

/// A trainer whose state a checkpoint holds: its tensors by name, in its optimizer's
/// order, and Adam's m, v and step count.
pub trait Checkpointed {
    /// The grid the trainer is on (its layout, and where this rank sits in it).
    fn grid(&self) -> &Grid;
    /// Its tensor-parallel group (a save gathers the slices over it).
    fn tp(&self) -> &Tp<'_>;
    /// The model.
    fn cfg(&self) -> &GptConfig;
    /// The tensors this rank holds with their names, in the optimizer's order.
    fn named(&self) -> Vec<(String, &Tensor)>;
    /// Adam over [`Checkpointed::named`]'s tensors.
    fn optimizer(&self) -> &Optimizer;
    /// Adam, to install a checkpoint's step count.
    fn optimizer_mut(&mut self) -> &mut Optimizer;
    /// The element type of the tensors (a checkpoint's model name says it).
    fn kind(&self) -> Kind {
        self.named().first().map_or(Kind::Float, |(_, t)| t.kind())
    }
}

/// Both trainers hold their grid, TP group, model, shard and optimizer in fields of the
/// same names: one body of accessors for each.
macro_rules! checkpointed {
    ($($trainer:ident),*) => {$(
        impl Checkpointed for $trainer<'_> {
            fn grid(&self) -> &Grid {
                self.grid
            }
            fn tp(&self) -> &Tp<'_> {
                &self.tp
            }
            fn cfg(&self) -> &GptConfig {
                &self.cfg
            }
            fn named(&self) -> Vec<(String, &Tensor)> {
                self.params.named()
            }
            fn optimizer(&self) -> &Optimizer {
                &self.opt
            }
            fn optimizer_mut(&mut self) -> &mut Optimizer {
                &mut self.opt
            }
        }
    )*};
}
checkpointed!(GridTrainer, PipeTrainer);
