//! Chapter 11 exercise 11.3: solution.

use crate::exchange::exchange_rows;
use crate::nets::{grad_or_zeros, tensor_on, values};
use crate::pass::Pass;
use crate::routing::Dispatched;
use mpi::topology::SimpleCommunicator;
use tch::Tensor;

// ANCHOR: combine_backward
/// The combine went expert rank → token rank; its backward goes token rank → expert rank:
/// the dispatch's counts.
pub fn combine_backward(world: &SimpleCommunicator, d: &Dispatched, grad: &Tensor) -> Tensor {
    let h = d.hidden;
    let got = exchange_rows(world, &values(grad), &d.send_counts, &d.recv_counts, h);
    tensor_on(
        &got,
        &[(got.len() / h.max(1)) as i64, h as i64],
        grad.device(),
    )
}
// ANCHOR_END: combine_backward

// ANCHOR: dispatch_backward
/// The dispatch went token rank → expert rank; its backward the other way: counts swapped.
pub fn dispatch_backward(world: &SimpleCommunicator, d: &Dispatched, grad: &Tensor) -> Tensor {
    let h = d.hidden;
    let got = exchange_rows(world, &values(grad), &d.recv_counts, &d.send_counts, h);
    tensor_on(
        &got,
        &[(got.len() / h.max(1)) as i64, h as i64],
        grad.device(),
    )
}
// ANCHOR_END: dispatch_backward

// ANCHOR: backward
/// Token side, then the experts, then the token side again, in the order of the cuts.
pub fn backward(world: &SimpleCommunicator, pass: &Pass, loss: &Tensor) {
    loss.backward();
    let to_experts = combine_backward(world, &pass.dispatched, &grad_or_zeros(&pass.returned));
    if pass.expert_out.requires_grad() {
        (&pass.expert_out * to_experts)
            .sum(tch::Kind::Float)
            .backward();
    }
    if pass.sent_rows.requires_grad() {
        // x is in a graph (on every rank alike): its rows' gradients go back to it.
        let to_tokens = dispatch_backward(world, &pass.dispatched, &grad_or_zeros(&pass.received));
        (&pass.sent_rows * to_tokens)
            .sum(tch::Kind::Float)
            .backward();
    }
}
// ANCHOR_END: backward
