//! Chapter 11 exercise 11.3: the backward through the two exchanges. The dispatch sent
//! rows out and the combine brought outputs back, each an all-to-all-v that cut LibTorch's
//! graph; going back, each cut's gradient crosses the same exchange the other way: the
//! combine's backward is dispatch-shaped, the dispatch's backward is combine-shaped.
//! Check with `make check CH=11`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::exchange::exchange_rows;
use crate::nets::{grad_or_zeros, tensor_on, values};
use crate::pass::Pass;
use crate::routing::Dispatched;
use mpi::topology::SimpleCommunicator;
use tch::Tensor;

// ANCHOR: combine_backward
/// The combine's backward: the gradients of the returned rows (on the tokens' rank, one
/// row per sent row, in send order) to the ranks that computed those rows, returned in
/// the order those ranks received the rows (`d.recv_counts` rows, `hidden` floats each),
/// on `grad`'s device.
pub fn combine_backward(world: &SimpleCommunicator, d: &Dispatched, grad: &Tensor) -> Tensor {
    // TODO(ex 11.3): the values of grad through exchange_rows with the dispatch's counts, as a tensor on grad's device
    todo!("ex 11.3: the combine's backward, shaped like the dispatch")
}
// ANCHOR_END: combine_backward

// ANCHOR: dispatch_backward
/// The dispatch's backward: the gradients of the received rows (on the experts' rank, in
/// the order received) back to the ranks that sent them, returned in send order
/// (`d.send_counts` rows, `hidden` floats each), on `grad`'s device.
pub fn dispatch_backward(world: &SimpleCommunicator, d: &Dispatched, grad: &Tensor) -> Tensor {
    // TODO(ex 11.3): the values of grad through exchange_rows with the counts swapped, as a tensor on grad's device
    todo!("ex 11.3: the dispatch's backward, shaped like the combine")
}
// ANCHOR_END: dispatch_backward

// ANCHOR: backward
/// The layer's backward on every rank, from this rank's `loss` (a scalar in the graph of
/// `pass.out`): afterwards the experts' parameters, the logits' graph (the router) and
/// `x` (when it requires grad) hold their gradients, as one process's backward would
/// give them. Every rank calls both exchanges, rows or no rows; the second only when `x`
/// requires grad (the same on every rank: `pass.sent_rows.requires_grad()`), since its
/// gradients are `x`'s. Three backward calls:
/// 1. `loss`'s: the gates (and the router) and the `returned` leaf;
/// 2. the experts': `expert_out` fed with the combine's backward of `returned`'s gradient;
/// 3. the sent rows': `sent_rows` fed with the dispatch's backward of `received`'s.
///
/// tch has no backward with a given gradient: `(t * g).sum()`'s backward feeds `t` with
/// exactly `g`. A tensor not in any graph (no rows, or `x` data) is not fed.
pub fn backward(world: &SimpleCommunicator, pass: &Pass, loss: &Tensor) {
    // TODO(ex 11.3): loss.backward(); combine_backward of returned's grad into expert_out; dispatch_backward of received's grad into sent_rows
    todo!("ex 11.3: the layer's backward, three backward calls and two exchanges")
}
// ANCHOR_END: backward
