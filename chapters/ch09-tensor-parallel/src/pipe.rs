//! Given: the point-to-point messages between the pipeline stages of one PP group, on
//! tensors (f32 or f64, through chapter 7's `ch07::wire` copies), with the bytes this rank
//! sent counted (the harness's tally counts collectives only).
//!
//! Rank s of the PP communicator is stage s. As in chapter 7's executor, a send is owed
//! rather than made at once: [`Pipe::send`] keeps its buffer, and the next
//! [`Pipe::recv`] posts it (MPI_Isend), receives (MPI_Recv), then waits for it, all in one
//! `mpi::request::scope`; a second send before any receive, or [`Pipe::flush`] at the end
//! of a phase, completes the one owed first (MPI_Isend and its wait at once). In GPipe's
//! order ([`crate::pipeline`]) that cannot deadlock: during the forwards stage s sends
//! only to s + 1, which receives from s before it sends anything, and the last stage only
//! receives; so, from the last stage back, every send meets its receive (the backwards
//! are the mirror image), and a send owed to s + 1 across the turn from forwards to
//! backwards is posted by the receive from s + 1 that starts them. The stage's TP ranks
//! each talk to the same TP rank of the next stage, each on its own PP communicator.

use crate::step_trace::{self, Axis};
use ch07::wire::{copy_in, copy_out, numel, WireElem};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::{Cell, RefCell};
use std::time::Instant;
use tch::{Device, Kind, Tensor};

/// A send not made yet: its values, its stage, its tag.
enum Owed {
    F32(Vec<f32>, usize, i32),
    F64(Vec<f64>, usize, i32),
}

/// The stages of one pipeline (one replica, one shard) and the messages between them.
pub struct Pipe<'c> {
    comm: &'c SimpleCommunicator,
    /// Sends since [`Pipe::take_sent`] last ran, and their bytes.
    sent: Cell<(usize, i64)>,
    /// The send the next receive (or [`Pipe::flush`]) completes.
    owed: RefCell<Option<Owed>>,
}

impl<'c> Pipe<'c> {
    /// The pipeline of the ranks of `comm` (rank s: stage s).
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        Pipe {
            comm,
            sent: Cell::new((0, 0)),
            owed: RefCell::new(None),
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

    /// Owes `t` to stage `to` with `tag`: the next receive, or [`Pipe::flush`], sends it
    /// (a send already owed is completed first).
    pub fn send(&self, t: &Tensor, to: usize, tag: i32) {
        self.flush();
        let owed = match t.kind() {
            Kind::Float => Owed::F32(self.values(t), to, tag),
            Kind::Double => Owed::F64(self.values(t), to, tag),
            other => panic!("Pipe send: a {other:?} tensor (the stages run in f32 or f64)"),
        };
        *self.owed.borrow_mut() = Some(owed);
    }

    /// Receives a tensor of `shape` and `kind` from stage `from` with `tag` (MPI_Recv),
    /// the owed send posted before it and completed after it.
    pub fn recv(&self, shape: &[i64], kind: Kind, from: usize, tag: i32) -> Tensor {
        let receive = || match kind {
            Kind::Float => self.recv_as::<f32>(shape, from, tag),
            Kind::Double => self.recv_as::<f64>(shape, from, tag),
            other => panic!("Pipe receive: a {other:?} tensor (the stages run in f32 or f64)"),
        };
        let owed = self.owed.borrow_mut().take();
        match owed {
            None => receive(),
            Some(Owed::F32(values, to, t)) => self.sending(&values, to, t, receive),
            Some(Owed::F64(values, to, t)) => self.sending(&values, to, t, receive),
        }
    }

    /// Completes the owed send, if any (before a collective, or at the end of a phase).
    pub fn flush(&self) {
        let owed = self.owed.borrow_mut().take();
        match owed {
            None => {}
            Some(Owed::F32(values, to, t)) => self.sending(&values, to, t, || ()),
            Some(Owed::F64(values, to, t)) => self.sending(&values, to, t, || ()),
        }
    }

    /// `value` as the last stage has it, on every stage (MPI_Bcast; not counted), after
    /// the owed send.
    pub fn from_last<E: Equivalence>(&self, value: E) -> E {
        self.flush();
        let mut v = value;
        let root = self.comm.process_at_rank(self.stages() as i32 - 1);
        root.broadcast_into(&mut v);
        v
    }

    /// `t`'s values for a send, counted in [`Pipe::take_sent`].
    fn values<E: WireElem>(&self, t: &Tensor) -> Vec<E> {
        let mut buf: Vec<E> = vec![];
        copy_out(t, &mut buf);
        let (n, bytes) = self.sent.get();
        let size = std::mem::size_of::<E>() as i64;
        self.sent.set((n + 1, bytes + buf.len() as i64 * size));
        buf
    }

    /// `work()` while `values` go to stage `to` (MPI_Isend before, its wait after).
    fn sending<E: WireElem, R>(
        &self,
        values: &[E],
        to: usize,
        tag: i32,
        work: impl FnOnce() -> R,
    ) -> R {
        let dest = self.comm.process_at_rank(to as i32);
        let since = Instant::now();
        let out = mpi::request::scope(|scope| {
            let send = dest.immediate_send_with_tag(scope, values, tag);
            let out = work();
            send.wait();
            out
        });
        step_trace::note(Axis::Pp, since);
        out
    }

    fn recv_as<E: WireElem>(&self, shape: &[i64], from: usize, tag: i32) -> Tensor {
        let mut buf = vec![E::default(); numel(shape)];
        let since = Instant::now();
        self.comm
            .process_at_rank(from as i32)
            .receive_into_with_tag(&mut buf[..], tag);
        step_trace::note(Axis::Pp, since);
        copy_in(&buf, shape, Device::Cpu)
    }
}
