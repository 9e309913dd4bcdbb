//! Chapter 11 exercise 11.4: solution.

use crate::nets::{tensor_on, values};
use crate::routing::Routing;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

// ANCHOR: switch_loss
/// `α·E·Σ f_i·P_i`.
pub fn switch_loss(alpha: f64, f: &[f64], p: &[f64]) -> f64 {
    alpha * f.len() as f64 * f.iter().zip(p).map(|(a, b)| a * b).sum::<f64>()
}
// ANCHOR_END: switch_loss

// ANCHOR: fractions
/// Counts per expert and the tokens, summed over the ranks, then divided by k·T.
pub fn fractions(world: &SimpleCommunicator, routing: &Routing, experts: usize) -> Vec<f64> {
    let mut mine = vec![0u64; experts + 1];
    for c in &routing.choices {
        mine[c.expert] += 1; // kept or dropped: the router chose it
    }
    mine[experts] = routing.tokens as u64;
    let mut all = vec![0u64; experts + 1];
    world.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    let pairs = (all[experts] * routing.k as u64) as f64;
    match pairs > 0.0 {
        true => all[..experts].iter().map(|&n| n as f64 / pairs).collect(),
        false => vec![0.0; experts],
    }
}
// ANCHOR_END: fractions

// ANCHOR: aux_loss
/// `P` is this rank's sum in the graph plus the others' as a constant, over all tokens.
pub fn aux_loss(
    world: &SimpleCommunicator,
    routing: &Routing,
    logits: &Tensor,
    alpha: f64,
) -> Tensor {
    let e = logits.size()[1] as usize;
    let f = fractions(world, routing, e);
    let sums = logits
        .softmax(-1, Kind::Float)
        .sum_dim_intlist(&[0i64][..], false, Kind::Float);
    let mut mine: Vec<f64> = values(&sums).iter().map(|&v| v as f64).collect();
    mine.push(routing.tokens as f64);
    let mut all = vec![0.0f64; e + 1];
    world.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    if all[e] == 0.0 {
        return Tensor::zeros([], (Kind::Float, logits.device()));
    }
    let others: Vec<f32> = (0..e).map(|i| (all[i] - mine[i]) as f32).collect();
    let p = (sums + tensor_on(&others, &[e as i64], logits.device())) / all[e];
    let f: Vec<f32> = f.iter().map(|&v| v as f32).collect();
    (p * tensor_on(&f, &[e as i64], logits.device())).sum(Kind::Float) * (alpha * e as f64)
}
// ANCHOR_END: aux_loss
