//! Given: the MoE layer's forward in LibTorch's autograd, over the ranks of `world`, and
//! the same layer in one process. Part 2 trains the router and the experts, so each
//! exchange cuts the graph: what a rank sends leaves its graph as plain floats, what it
//! receives is a fresh leaf that requires grad. [`Pass`] keeps the tensors on both sides
//! of both cuts; ex 11.3's `backward` joins the pieces again.
//!
//! The gates are computed in the graph: `softmax(logits)` at the chosen experts, divided
//! by the sum of the two for k = 2, so the router gets gradients. Which experts are
//! chosen and which choices are dropped (ex 11.1's `route` on the logits' values) is a
//! decision, not a function with a gradient.
//!
//! The tensors may live on a GPU (`moe_train --device cuda`): the leaves of both cuts are
//! made on `x`'s device, while the routing and the exchanges work on host floats
//! (`nets::values` copies them out, `nets::tensor_on` puts them back).

use crate::config::{Layout, MoeConfig};
use crate::exchange::{dispatch, exchange_rows};
use crate::nets::{indices, tensor_on, values, ExpertNets};
use crate::router::route;
use crate::routing::{Dispatched, Routing};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

/// One forward of the layer on one rank, with the tensors of both graph cuts.
pub struct Pass {
    /// `tokens × hidden`, in the graph of the gates (hence the logits) and of `returned`.
    pub out: Tensor,
    /// This rank's routing (ex 11.1).
    pub routing: Routing,
    /// What this rank sent and received in the dispatch (ex 11.2).
    pub dispatched: Dispatched,
    /// The rows this rank sent, in send order: `x`'s rows gathered, in `x`'s graph.
    pub sent_rows: Tensor,
    /// The rows this rank received, a leaf (the dispatch's cut) that requires grad when
    /// `x` does.
    pub received: Tensor,
    /// The experts' outputs of `received`, in the experts' graph.
    pub expert_out: Tensor,
    /// Those outputs back on the tokens' rank, in send order: a leaf that requires grad
    /// (the combine's cut).
    pub returned: Tensor,
}

/// The gates of `routing`'s choices, token-major (`T·k`), in the graph of `logits`:
/// the softmax over all E at each chosen expert, renormalised over the two for k = 2.
pub fn gates(routing: &Routing, logits: &Tensor) -> Tensor {
    let (t, k) = (routing.tokens as i64, routing.k as i64);
    let ids: Vec<i64> = routing.choices.iter().map(|c| c.expert as i64).collect();
    let probs = logits.softmax(-1, Kind::Float);
    let top = probs.gather(1, &indices(&ids, logits.device()).view([t, k]), false);
    let top = match k {
        1 => top,
        _ => &top / top.sum_dim_intlist(&[1i64][..], true, Kind::Float),
    };
    top.view([-1])
}

/// `Σ gate · rows` per token: row `n` of `rows` belongs to choice `choices[n]` (an index
/// into `routing.choices`), added to its token's output with that choice's gate.
fn weighted_sum(routing: &Routing, logits: &Tensor, choices: &[usize], rows: &Tensor) -> Tensor {
    let h = rows.size()[1];
    let idx = |f: &dyn Fn(usize) -> usize| {
        let idx: Vec<i64> = choices.iter().map(|&i| f(i) as i64).collect();
        indices(&idx, rows.device())
    };
    let g = gates(routing, logits).index_select(0, &idx(&|i| i));
    let out = Tensor::zeros([routing.tokens as i64, h], (Kind::Float, rows.device()));
    out.index_add(0, &idx(&|i| i / routing.k), &(rows * g.unsqueeze(1)))
}

// ANCHOR: forward
/// The layer's forward on this rank's tokens `x` (`tokens × hidden`) with their router
/// `logits` (`tokens × E`), the experts `nets` being this rank's block of the layout.
/// A bad setting is refused before any communication (the same on every rank).
pub fn forward(
    world: &SimpleCommunicator,
    cfg: &MoeConfig,
    nets: &ExpertNets,
    x: &Tensor,
    logits: &Tensor,
) -> Result<Pass, String> {
    let (h, p) = (nets.hidden, world.size() as usize);
    let layout = Layout {
        experts: cfg.experts,
        ranks: p,
    };
    let routing = route(cfg, &values(logits))?; // ex 11.1
    let dispatched = dispatch(world, &layout, &routing, &values(x), h); // ex 11.2
    let tokens: Vec<i64> = dispatched
        .sent
        .iter()
        .map(|&i| (i / cfg.k) as i64)
        .collect();
    let dev = x.device();
    let sent_rows = x.index_select(0, &indices(&tokens, dev));
    let n = dispatched.rows.len() / h.max(1);
    // A leaf that requires grad only when the layer's input does: with data for `x` (the
    // same on every rank), the experts' backward skips the rows' gradient it would discard.
    let received = tensor_on(&dispatched.rows, &[n as i64, h as i64], dev)
        .set_requires_grad(x.requires_grad());
    let local = dispatched.local_experts(layout.max_local());
    let expert_out = nets.forward(&received, &local);
    let (send, recv) = (&dispatched.recv_counts, &dispatched.send_counts);
    let back = exchange_rows(world, &values(&expert_out), send, recv, h); // ex 11.2
    let shape = [tokens.len() as i64, h as i64];
    let returned = tensor_on(&back, &shape, dev).set_requires_grad(true);
    let out = weighted_sum(&routing, logits, &dispatched.sent, &returned);
    Ok(Pass {
        out,
        routing,
        dispatched,
        sent_rows,
        received,
        expert_out,
        returned,
    })
}
// ANCHOR_END: forward

/// The same layer in one process, `nets` holding every expert: for each kept choice,
/// the gate times the expert's output of its token's row, summed per token; one graph
/// from `x`, `logits` and the experts to the output.
pub fn one_process(
    cfg: &MoeConfig,
    nets: &ExpertNets,
    x: &Tensor,
    logits: &Tensor,
) -> Result<Tensor, String> {
    let routing = route(cfg, &values(logits))?;
    let kept: Vec<usize> = (0..routing.choices.len())
        .filter(|&i| routing.choices[i].kept)
        .collect();
    let tokens: Vec<i64> = kept.iter().map(|&i| (i / cfg.k) as i64).collect();
    let experts: Vec<usize> = kept.iter().map(|&i| routing.choices[i].expert).collect();
    let rows = x.index_select(0, &indices(&tokens, x.device()));
    let y = nets.forward(&rows, &experts);
    Ok(weighted_sum(&routing, logits, &kept, &y))
}
