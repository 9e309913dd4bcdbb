//! Chapter 11 exercise 11.4: the load-balancing loss of Switch Transformer,
//! `aux = α·E·Σ_i f_i·P_i`, over the ranks. `f_i` is the fraction of the (token, choice)
//! pairs that chose expert i, kept or dropped: counts over all ranks divided by `k·T`
//! (`T` all ranks' tokens), as Megatron-LM's `switch_load_balancing_loss_func` divides
//! by `topk`; it is a count, with no gradient. `P_i` is the router's probability of
//! expert i (the softmax over all E) averaged over all ranks' tokens: it has a gradient,
//! and that gradient is what trains the router towards balance. Evenly routed, both are
//! `1/E` and the loss is `α`, for k = 1 and k = 2 alike. Check with `make check CH=11`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::nets::{tensor_on, values};
use crate::routing::Routing;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

// ANCHOR: switch_loss
/// `α·E·Σ_i f_i·P_i` for `E = f.len()` experts (`p` as long), in f64.
pub fn switch_loss(alpha: f64, f: &[f64], p: &[f64]) -> f64 {
    // TODO(ex 11.4): alpha times E times the sum of the products
    todo!("ex 11.4: the Switch loss of f and P")
}
// ANCHOR_END: switch_loss

// ANCHOR: fractions
/// `f`: for each of the `experts`, the (token, choice) pairs of every rank's routing that
/// chose it, kept or dropped, divided by `k·T` (`T` the tokens of all ranks); the same on
/// every rank, summing to 1. No tokens anywhere: all zeros.
pub fn fractions(world: &SimpleCommunicator, routing: &Routing, experts: usize) -> Vec<f64> {
    // TODO(ex 11.4): count the choices per expert, all_reduce_into the counts and the tokens, divide by k·T
    todo!("ex 11.4: f, the fraction of pairs per expert over all ranks")
}
// ANCHOR_END: fractions

// ANCHOR: aux_loss
/// The loss on every rank (`logits` is this rank's `tokens × E`, in the router's graph),
/// a scalar f32 tensor on the logits' device equal to one process's on all ranks' tokens, whose gradient at
/// this rank's logits is one process's there: `f` from [`fractions`] (a constant), `P`
/// the softmax summed over this rank's tokens, in the graph, plus the other ranks' sums as
/// a constant (an allreduce, in f64), divided by all ranks' tokens. No tokens anywhere: 0.
pub fn aux_loss(
    world: &SimpleCommunicator,
    routing: &Routing,
    logits: &Tensor,
    alpha: f64,
) -> Tensor {
    // TODO(ex 11.4): probs summed over tokens; allreduce the sums; P = (mine + others' as a constant) / T; alpha·E·sum(f·P)
    todo!("ex 11.4: the loss over the ranks, with P in the graph")
}
// ANCHOR_END: aux_loss
