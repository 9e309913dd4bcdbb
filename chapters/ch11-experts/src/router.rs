//! Chapter 11 exercise 11.1: the router. Each token picks its top-k experts from its
//! logits, with softmax gate weights; each expert takes at most C (token, choice) pairs,
//! first come first served in token order; the rest are dropped. Pure: no MPI. Check with
//! `make check CH=11`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::config::MoeConfig;
pub use crate::routing::{Choice, Routing};

// ANCHOR: capacity
/// C, the most (token, choice) pairs one expert takes from `tokens` tokens:
/// `ceil(T·k·capacity_factor / E)`, computed in f64 in that order (`T·k·factor` first,
/// then the division, then the ceiling). 0 tokens: 0.
pub fn capacity(cfg: &MoeConfig, tokens: usize) -> usize {
    // TODO(ex 11.1): (tokens * k) as f64 * capacity_factor / experts as f64, rounded up
    todo!("ex 11.1: the capacity of one expert")
}
// ANCHOR_END: capacity

// ANCHOR: route
/// Routes `logits.len() / E` tokens (`logits` is token-major, E per token):
/// - refuses a bad `cfg` (with [`MoeConfig::check`]'s line) and logits that do not split
///   into rows of E;
/// - per token, its k experts with the highest logits, best first, a tie going to the
///   lower expert index;
/// - gate weights from the softmax over all E logits (computed in f64, stored as f32):
///   for k = 1 the chosen expert's probability; for k = 2 the two probabilities
///   renormalised to sum to 1 (`p_a / (p_a + p_b)`);
/// - tokens in order, each token's choices in order: a choice is kept if its expert holds
///   fewer than C ([`capacity`]) kept choices, else dropped; `load` and `dropped` count
///   them per expert.
pub fn route(cfg: &MoeConfig, logits: &[f32]) -> Result<Routing, String> {
    // TODO(ex 11.1): check; per row: sort the experts by logit, softmax, kept while load < capacity
    todo!("ex 11.1: top-k, gate weights, capacity and drops")
}
// ANCHOR_END: route
