//! Given: the point-to-point messages between the pipeline stages of one PP group, on
//! tensors (f32 or f64, through chapter 7's `ch07::wire` copies), with the bytes this rank
//! sent counted (the harness's tally counts collectives only).
//!
//! Rank s of the PP communicator is stage s. A send is a standard-mode MPI_Send. That
//! cannot deadlock in GPipe's order ([`crate::pipeline`]): during the forwards stage s
//! sends only to s + 1, which receives from s before it sends anything, and the last
//! stage only receives; so, from the last stage back, every send meets its receive (the
//! backwards are the mirror image). The stage's TP ranks each talk to the same TP rank of
//! the next stage, each on its own PP communicator.

use ch07::wire::{copy_in, copy_out, numel, WireElem};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use tch::{Device, Kind, Tensor};

/// The stages of one pipeline (one replica, one shard) and the messages between them.
pub struct Pipe<'c> {
    comm: &'c SimpleCommunicator,
    /// Sends since [`Pipe::take_sent`] last ran, and their bytes.
    sent: Cell<(usize, i64)>,
}

impl<'c> Pipe<'c> {
    /// The pipeline of the ranks of `comm` (rank s: stage s).
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        Pipe {
            comm,
            sent: Cell::new((0, 0)),
        }
    }

    /// This rank's stage.
    pub fn stage(&self) -> usize {
        self.comm.rank() as usize
    }

    /// The number of stages.
    pub fn stages(&self) -> usize {
        self.comm.size() as usize
    }

    /// Whether this is the last stage.
    pub fn last(&self) -> bool {
        self.stage() + 1 == self.stages()
    }

    /// The sends (and their bytes) since the last call, and a new count from zero.
    pub fn take_sent(&self) -> (usize, i64) {
        self.sent.replace((0, 0))
    }

    /// Sends `t` to stage `to` with `tag` (MPI_Send).
    pub fn send(&self, t: &Tensor, to: usize, tag: i32) {
        match t.kind() {
            Kind::Float => self.send_as::<f32>(t, to, tag),
            Kind::Double => self.send_as::<f64>(t, to, tag),
            other => panic!("Pipe send: a {other:?} tensor (the stages run in f32 or f64)"),
        }
    }

    /// Receives a tensor of `shape` and `kind` from stage `from` with `tag` (MPI_Recv).
    pub fn recv(&self, shape: &[i64], kind: Kind, from: usize, tag: i32) -> Tensor {
        match kind {
            Kind::Float => self.recv_as::<f32>(shape, from, tag),
            Kind::Double => self.recv_as::<f64>(shape, from, tag),
            other => panic!("Pipe receive: a {other:?} tensor (the stages run in f32 or f64)"),
        }
    }

    /// `value` as the last stage has it, on every stage (MPI_Bcast; not counted).
    pub fn from_last<E: Equivalence>(&self, value: E) -> E {
        let mut v = value;
        let root = self.comm.process_at_rank(self.stages() as i32 - 1);
        root.broadcast_into(&mut v);
        v
    }

    fn send_as<E: WireElem>(&self, t: &Tensor, to: usize, tag: i32) {
        let mut buf: Vec<E> = vec![];
        copy_out(t, &mut buf);
        let (n, bytes) = self.sent.get();
        let size = std::mem::size_of::<E>() as i64;
        self.sent.set((n + 1, bytes + buf.len() as i64 * size));
        self.comm
            .process_at_rank(to as i32)
            .send_with_tag(&buf[..], tag);
    }

    fn recv_as<E: WireElem>(&self, shape: &[i64], from: usize, tag: i32) -> Tensor {
        let mut buf = vec![E::default(); numel(shape)];
        self.comm
            .process_at_rank(from as i32)
            .receive_into_with_tag(&mut buf[..], tag);
        copy_in(&buf, shape, Device::Cpu)
    }
}
