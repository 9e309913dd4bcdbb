//! Given: the tensor-parallel group a layer runs on, and its two collectives on tensors.
//!
//! A layer takes a [`Tp`]: the communicator of the t ranks that share one layer's
//! weights. In this chapter it is the world; in a DP x TP x PP grid it is one of the
//! grid's sub-communicators, so the layers never ask for the world themselves. The
//! allreduces copy a tensor (f32 or f64, any shape) into an MPI buffer with chapter 7's
//! `ch07::wire` copies, reduce it, and copy the result into a new tensor of the same shape.

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
    /// Wall time spent in this group's allreduces so far (copies included).
    spent: Cell<Duration>,
}

impl<'c> Tp<'c> {
    /// The tensor-parallel group of the ranks of `comm`.
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        Tp {
            comm,
            spent: Cell::new(Duration::ZERO),
        }
    }

    /// Wall time spent in this group's allreduces since it was made (the copies between
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

    fn allreduce(&self, t: &Tensor, op: SystemOperation) -> Tensor {
        let start = Instant::now();
        let out = match t.kind() {
            Kind::Float => self.allreduce_as::<f32>(t, op),
            Kind::Double => self.allreduce_as::<f64>(t, op),
            other => panic!("Tp allreduce: a {other:?} tensor (the layers run in f32 or f64)"),
        };
        self.spent.set(self.spent.get() + start.elapsed());
        out
    }

    fn allreduce_as<E: WireElem>(&self, t: &Tensor, op: SystemOperation) -> Tensor {
        let mut mine: Vec<E> = vec![];
        copy_out(t, &mut mine);
        let mut total = vec![E::default(); mine.len()];
        self.comm.all_reduce_into(&mine[..], &mut total[..], op);
        copy_in(&total, &t.size(), t.device())
    }
}
