//! pipe_bench's counting transfer: ex 7.2's pair, noting on each stage which micro-batches'
//! activations it holds (a forward's activation moves on, its gradient comes back).
//!
//! Part of `pipe_bench` (`make bench CH=07`); no program of its own.

use ch07::pipe_train::learner_transfer;
use ch07::wire::{SendRequest, Transfer, WireElem};
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use tch::{Device, Tensor};

thread_local! {
    /// The micro-batches this stage holds activations of now, and the most held at once.
    pub static HELD: RefCell<(BTreeSet<i32>, usize)> = const { RefCell::new((BTreeSet::new(), 0)) };
}

/// A micro-batch's forward moved an activation (`true`) or its backward a gradient.
fn note(tag: i32, forward: bool) {
    HELD.with(|h| {
        let (set, peak) = &mut *h.borrow_mut();
        match forward {
            true => set.insert(tag),
            false => set.remove(&tag),
        };
        *peak = (*peak).max(set.len());
    });
}

/// Ex 7.2's send, noting what it moves: an activation goes to the next stage.
fn counting_send<'a, 'b, E: WireElem>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    shape: &[i64],
    buf: &'a mut Vec<E>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b, E>, String> {
    note(tag, to > comm.rank() as usize);
    (learner_transfer::<E>().send)(comm, to, tag, t, shape, buf, scope)
}

/// Ex 7.2's receive, noting what it moves: an activation comes from the stage before.
fn counting_recv<E: WireElem>(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    note(tag, from < comm.rank() as usize);
    (learner_transfer::<E>().recv)(comm, from, tag, shape, device)
}

/// Ex 7.2's pair (`E`s on the wire), counting what each stage holds in [`HELD`].
pub fn counting_transfer<E: WireElem>() -> Transfer<E> {
    Transfer {
        send: counting_send::<E>,
        recv: counting_recv::<E>,
    }
}
