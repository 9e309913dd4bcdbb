//! Given: the tensor-parallel group a layer runs on, and its two collectives on tensors.
//!
//! A layer takes a [`Tp`]: the communicator of the t ranks that share one layer's
//! weights. In this chapter it is the world; in a DP x TP x PP grid it is one of the
//! grid's sub-communicators, so the layers never ask for the world themselves. The
//! collectives copy a tensor (f32 or f64) into an MPI buffer with chapter 7's `ch07::wire`
//! copies, reduce or gather it, and copy the result into a new tensor: of the same shape
//! for the allreduces, of t times (allgather) or 1/t of (reduce-scatter) the tokens for
//! sequence parallelism's two halves.

use crate::context::Context;
use crate::step_trace::Axis;
use ch07::wire::{copy_in, copy_out, WireElem};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::time::{Duration, Instant};
use tch::{Kind, Tensor};

/// The ranks that share one layer's weights: rank r of t holds shard r.
pub struct Tp<'c> {
    comm: &'c SimpleCommunicator,
    /// Which axis of the grid it is, for [`crate::step_trace`].
    axis: Axis,
    /// Wall time spent in this group's collectives so far (copies included).
    spent: Cell<Duration>,
    /// The sequence's split over a context-parallel group, if any (chapter 13).
    context: Option<&'c dyn Context>,
}

impl<'c> Tp<'c> {
    /// The tensor-parallel group of the ranks of `comm`.
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        Tp::on(comm, Axis::Tp)
    }

    /// The same collectives over `comm`, another axis of the grid (its traced spans go on
    /// that axis's track).
    pub fn on(comm: &'c SimpleCommunicator, axis: Axis) -> Self {
        Tp {
            comm,
            axis,
            spent: Cell::new(Duration::ZERO),
            context: None,
        }
    }

    /// This group for a model whose sequence is split over a context-parallel group as
    /// `context` says ([`crate::context`]): the layers then hold its tokens alone.
    pub fn with_context(mut self, context: &'c dyn Context) -> Self {
        self.context = Some(context);
        self
    }

    /// The context-parallel split the model runs under, if any.
    pub fn context(&self) -> Option<&'c dyn Context> {
        self.context
    }

    /// This rank's tokens of `t` (`[batch, seq, ...]`): all of them unless the sequence
    /// is split ([`Tp::with_context`]).
    pub fn local_tokens(&self, t: &Tensor) -> Tensor {
        match self.context {
            Some(c) => c.local(t),
            None => t.shallow_clone(),
        }
    }

    /// The rows of the position embedding `pos` for this rank's `s` tokens: the first `s`
    /// unless the sequence is split.
    pub fn positions_of(&self, pos: &Tensor, s: i64) -> Tensor {
        match self.context {
            Some(c) => pos.index_select(0, &c.positions(pos.size()[0]).to_device(pos.device())),
            None => pos.narrow(0, 0, s),
        }
    }

    /// Wall time spent in this group's collectives since it was made (the copies between
    /// tensors and MPI buffers included): the benchmark's communication time.
    pub fn time_in_allreduces(&self) -> Duration {
        self.spent.get()
    }

    /// This rank's number r in the group.
    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    /// The group's size t.
    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }

    /// The communicator itself.
    pub fn comm(&self) -> &SimpleCommunicator {
        self.comm
    }

    /// The element-wise sum of `t` over the group (MPI_Allreduce, MPI_SUM), as a new
    /// tensor of `t`'s shape and kind, outside any autograd graph.
    pub fn sum(&self, t: &Tensor) -> Tensor {
        self.allreduce(t, SystemOperation::sum())
    }

    /// The element-wise maximum of `t` over the group (MPI_Allreduce, MPI_MAX).
    pub fn max(&self, t: &Tensor) -> Tensor {
        self.allreduce(t, SystemOperation::max())
    }

    /// Sequence parallelism's allgather: every rank's tokens of `t` (`[batch, s/t, ...]`,
    /// rank r's tokens `r*s/t..(r+1)*s/t`), as the whole `[batch, s, ...]` on every rank
    /// (MPI_Allgather).
    pub fn gather_tokens(&self, t: &Tensor) -> Tensor {
        self.timed(|| match t.kind() {
            Kind::Float => self.gather_as::<f32>(t),
            Kind::Double => self.gather_as::<f64>(t),
            other => panic!("Tp allgather: a {other:?} tensor (the layers run in f32 or f64)"),
        })
    }

    /// Sequence parallelism's reduce-scatter: the sum over the group of `t` (`[batch, s,
    /// ...]`), this rank's tokens of it only, `[batch, s/t, ...]`
    /// (MPI_Reduce_scatter_block). `t` must divide s.
    pub fn scatter_tokens_sum(&self, t: &Tensor) -> Tensor {
        self.timed(|| match t.kind() {
            Kind::Float => self.scatter_as::<f32>(t),
            Kind::Double => self.scatter_as::<f64>(t),
            other => panic!("Tp reduce-scatter: a {other:?} tensor (the layers run in f32 or f64)"),
        })
    }

    /// `t` with its tokens (dimension 1) first, contiguous: each rank's tokens one block.
    fn tokens_first(t: &Tensor) -> Tensor {
        t.transpose(0, 1).contiguous()
    }

    /// The inverse of [`Tp::tokens_first`] for a block of `tokens` tokens: `values` as
    /// `[batch, tokens, ...]`.
    fn tokens_back<E: WireElem>(values: &[E], like: &Tensor, tokens: i64) -> Tensor {
        let mut shape = like.size();
        shape.swap(0, 1);
        shape[0] = tokens;
        copy_in(values, &shape, like.device())
            .transpose(0, 1)
            .contiguous()
    }

    fn gather_as<E: WireElem>(&self, t: &Tensor) -> Tensor {
        let mut mine: Vec<E> = vec![];
        copy_out(&Self::tokens_first(t), &mut mine);
        let mut all = vec![E::default(); mine.len() * self.size()];
        self.comm.all_gather_into(&mine[..], &mut all[..]);
        Self::tokens_back(&all, t, t.size()[1] * self.size() as i64)
    }

    fn scatter_as<E: WireElem>(&self, t: &Tensor) -> Tensor {
        let tokens = t.size()[1];
        assert_eq!(
            tokens % self.size() as i64,
            0,
            "{} ranks must divide the {tokens} tokens",
            self.size()
        );
        let mut all: Vec<E> = vec![];
        copy_out(&Self::tokens_first(t), &mut all);
        let mut mine = vec![E::default(); all.len() / self.size()];
        self.comm
            .reduce_scatter_block_into(&all[..], &mut mine[..], SystemOperation::sum());
        Self::tokens_back(&mine, t, tokens / self.size() as i64)
    }

    /// `work()`, its wall time added to [`Tp::time_in_allreduces`].
    fn timed(&self, work: impl FnOnce() -> Tensor) -> Tensor {
        let start = Instant::now();
        let out = work();
        self.spent.set(self.spent.get() + start.elapsed());
        crate::step_trace::note(self.axis, start);
        out
    }

    fn allreduce(&self, t: &Tensor, op: SystemOperation) -> Tensor {
        self.timed(|| match t.kind() {
            Kind::Float => self.allreduce_as::<f32>(t, op),
            Kind::Double => self.allreduce_as::<f64>(t, op),
            other => panic!("Tp allreduce: a {other:?} tensor (the layers run in f32 or f64)"),
        })
    }

    fn allreduce_as<E: WireElem>(&self, t: &Tensor, op: SystemOperation) -> Tensor {
        let mut mine: Vec<E> = vec![];
        copy_out(t, &mut mine);
        let mut total = vec![E::default(); mine.len()];
        self.comm.all_reduce_into(&mine[..], &mut total[..], op);
        copy_in(&total, &t.size(), t.device())
    }
}
