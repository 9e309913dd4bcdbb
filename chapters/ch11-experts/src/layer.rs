//! Given: the MoE layer's forward over the ranks of `world` (route, dispatch, experts,
//! combine), and the same layer in one process with every expert local, which the checks
//! and the lab compare it with.
//!
//! Each rank routes its own tokens with its own capacity (its tokens are one group, as
//! GShard calls it), so the one-process layer routes each rank's tokens on their own too:
//! it differs from the distributed one only in where the experts run.

use crate::config::{Layout, MoeConfig};
use crate::exchange::{combine, dispatch};
use crate::experts::Experts;
use crate::router::route;
use crate::routing::{Dispatched, Routing};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// One forward of the layer on one rank: its output rows, and what it took to get them.
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    /// `tokens × hidden`: the combined outputs of this rank's tokens.
    pub out: Vec<f32>,
    /// This rank's routing.
    pub routing: Routing,
    /// What this rank sent and received on the way out.
    pub dispatched: Dispatched,
}

// ANCHOR: forward
/// The layer's forward on this rank's tokens `x` (`tokens × hidden`) with their router
/// `logits` (`tokens × E`), the experts split over `world` by [`Layout`]. A bad setting
/// is refused before any communication (the same on every rank).
pub fn forward(
    world: &SimpleCommunicator,
    cfg: &MoeConfig,
    experts: &Experts,
    logits: &[f32],
    x: &[f32],
) -> Result<Forward, String> {
    let layout = Layout {
        experts: cfg.experts,
        ranks: world.size() as usize,
    };
    let routing = route(cfg, logits)?; // ex 11.1
    let dispatched = dispatch(world, &layout, &routing, x, experts.hidden); // ex 11.2
    let y = experts.run(&layout, world.rank() as usize, &dispatched);
    let out = combine(world, &routing, &dispatched, &y); // ex 11.2
    Ok(Forward {
        out,
        routing,
        dispatched,
    })
}
// ANCHOR_END: forward

/// The same layer in one process, every expert local: `out[t]` is the sum, over token
/// `t`'s kept choices in order, of the gate weight times the expert's output.
pub fn one_process(
    cfg: &MoeConfig,
    experts: &Experts,
    logits: &[f32],
    x: &[f32],
) -> Result<Vec<f32>, String> {
    let routing = route(cfg, logits)?;
    let h = experts.hidden;
    let mut out = vec![0.0f32; routing.tokens * h];
    for (i, c) in routing.choices.iter().enumerate() {
        let t = i / routing.k;
        if c.kept {
            let y = experts.apply(c.expert, &x[t * h..(t + 1) * h]);
            for (o, v) in out[t * h..(t + 1) * h].iter_mut().zip(y) {
                *o += c.gate * v;
            }
        }
    }
    Ok(out)
}
