//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them. Each runs the exercise's own check (tests/common) on a wrong answer and
//! pins the message a learner will see: the router's pure checks here, the exchange's
//! the backward's and the
//! balancing loss's under mpirun at 2 or 3 ranks (`toolkit::mpi_test!`).
//!
//! Run: `cargo test -p ch11-experts --features solution --test planted_mistakes
//! -- --nocapture` to read the messages.

#[path = "../../chapters/ch11-experts/tests/common/mod.rs"]
mod common;

use ch11::backward::{backward, combine_backward};
use ch11::balance::{aux_loss, fractions};
use ch11::config::{Layout, MoeConfig};
use ch11::exchange::{combine, dispatch, exchange_rows};
use ch11::experts::Experts;
use ch11::nets::{grad_or_zeros, tensor_on, values};
use ch11::pass::Pass;
use ch11::router::route;
use ch11::routing::{Dispatched, Routing};
use common::balance::{check_aux_loss, check_fractions};
use common::grad::check_input_grad;
use common::layer::{check_dispatch, check_layer};
use common::{check_capacity, check_route, Case};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

fn case(tokens: usize, experts: usize, k: usize, quarters: u32, hidden: usize) -> Case {
    Case {
        tokens,
        experts,
        k,
        quarters,
        hidden,
        seed: 5,
    }
}

// ANCHOR: floor_capacity
/// Mistake 1: the capacity rounded down: an even share of 2.5 tokens becomes 2.
fn floor_capacity(cfg: &MoeConfig, tokens: usize) -> usize {
    ((tokens * cfg.k) as f64 * cfg.capacity_factor / cfg.experts as f64).floor() as usize
}
// ANCHOR_END: floor_capacity

#[test]
fn a_capacity_rounded_down_drops_a_token_too_many() {
    assert_eq!(check_capacity(floor_capacity, &case(8, 4, 1, 4, 1)), Ok(())); // 2, whole
    let says = "T=10 E=4 k=1 factor=1 hidden=1 seed=5: capacity 2, but ceil(T·k·factor / E) \
                = ceil(10 / 4) = 3";
    assert_eq!(
        check_capacity(floor_capacity, &case(10, 4, 1, 4, 1)),
        Err(says.into())
    );
}

// ANCHOR: raw_top2
/// Mistake 2: top-2 gates left as the softmax over all E, not renormalised over the two.
fn raw_top2(cfg: &MoeConfig, logits: &[f32]) -> Result<Routing, String> {
    let mut r = route(cfg, logits)?;
    for (t, row) in logits.chunks(cfg.experts).enumerate() {
        let mine = &mut r.choices[t * cfg.k..(t + 1) * cfg.k];
        let max = row[mine[0].expert] as f64;
        let all: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
        for c in mine {
            c.gate = ((row[c.expert] as f64 - max).exp() / all) as f32; // the mistake: over all E
        }
    }
    Ok(r)
}
// ANCHOR_END: raw_top2

#[test]
fn top_2_gates_not_renormalised_are_named_with_the_token() {
    assert_eq!(check_route(raw_top2, &case(6, 2, 2, 4, 1)), Ok(())); // E = 2: the same
    let err = check_route(raw_top2, &case(6, 4, 2, 4, 1)).unwrap_err();
    assert!(
        err.starts_with("T=6 E=4 k=2 factor=1 hidden=1 seed=5: token 0 choice 0"),
        "{err}"
    );
}

// ANCHOR: ungated_combine
/// Mistake 3: the combine that forgets the gate weight (adds the expert outputs).
fn ungated_combine(
    world: &SimpleCommunicator,
    routing: &Routing,
    sent: &Dispatched,
    y: &[f32],
) -> Vec<f32> {
    let h = sent.hidden;
    let back = exchange_rows(world, y, &sent.recv_counts, &sent.send_counts, h);
    let mut out = vec![0.0f32; routing.tokens * h];
    for (n, &i) in sent.sent.iter().enumerate() {
        let t = i / routing.k;
        for d in 0..h {
            out[t * h + d] += back[n * h + d]; // the mistake: no gate
        }
    }
    out
}
// ANCHOR_END: ungated_combine

// ANCHOR: token_order_dispatch
/// Mistake 4: the rows sent in token order, not sorted by expert: the counts are right,
/// but a rank holding two experts gets each row under the wrong one.
fn token_order_dispatch(
    world: &SimpleCommunicator,
    layout: &Layout,
    routing: &Routing,
    x: &[f32],
    h: usize,
) -> Dispatched {
    let mut d = dispatch(world, layout, routing, x, h);
    let order: Vec<usize> = (0..routing.choices.len())
        .filter(|&i| routing.choices[i].kept)
        .collect();
    let rows: Vec<f32> = order
        .iter()
        .flat_map(|&i| x[i / routing.k * h..][..h].to_vec())
        .collect();
    let back = exchange_rows(world, &rows, &d.send_counts, &d.recv_counts, h);
    (d.rows, d.sent) = (back, order);
    d
}
// ANCHOR_END: token_order_dispatch

/// Rank 0's check must fail with a message that starts with `says` (the other ranks'
/// verdicts do not matter: a rank whose rows were all right passes).
fn pinned(world: &SimpleCommunicator, got: Result<(), String>, says: &str) -> Result<(), String> {
    match (world.rank(), got) {
        (0, Ok(())) => Err("the check passed a planted mistake".into()),
        (0, Err(e)) if !e.starts_with(says) => Err(format!("the message changed: {e}")),
        _ => Ok(()),
    }
}

toolkit::mpi_test! {
    fn a_combine_without_the_gate_is_named_with_the_token(world at &[2]) {
        let c = case(4, 3, 2, 4, 2);
        let id = Experts::identity(3, 2);
        let got = check_layer(world, (dispatch, ungated_combine), &id, &c, 0.0);
        pinned(world, got, "rank 0 of 2, T=4 E=3 k=2 factor=1 hidden=2 seed=5: token 0 float 0:")
    }

    fn a_dispatch_in_token_order_puts_rows_under_the_wrong_expert(world at &[2]) {
        let c = case(8, 4, 1, 8, 1);
        let got = check_dispatch(world, token_order_dispatch, &c);
        pinned(world, got, "rank 0 of 2, T=8 E=4 k=1 factor=2 hidden=1 seed=5: row")
    }

    fn the_right_answers_pass_the_same_cases(world at &[2]) {
        check_dispatch(world, dispatch, &case(8, 4, 1, 8, 1))?;
        check_layer(world, (dispatch, combine), &Experts::identity(3, 2), &case(4, 3, 2, 4, 2), 0.0)
    }
}

// ANCHOR: unswapped_combine
/// Mistake 5: the way back with the counts NOT swapped: each rank sends its outputs as
/// if they were laid out like the rows it sent.
fn unswapped_combine(
    world: &SimpleCommunicator,
    routing: &Routing,
    sent: &Dispatched,
    y: &[f32],
) -> Vec<f32> {
    let h = sent.hidden;
    let back = exchange_rows(world, y, &sent.send_counts, &sent.recv_counts, h); // the mistake
    let mut out = vec![0.0f32; routing.tokens * h];
    for (n, &i) in sent.sent.iter().enumerate() {
        let t = i / routing.k;
        for d in 0..h {
            out[t * h + d] += routing.choices[i].gate * back[n * h + d];
        }
    }
    out
}
// ANCHOR_END: unswapped_combine

toolkit::mpi_test! {
    fn the_way_back_with_the_counts_not_swapped_returns_other_tokens_rows(world at &[3]) {
        // Three ranks whose counts differ per pair, yet every rank's outputs cover what it
        // is told to send: no assertion stops it, the rows simply come back to the wrong
        // tokens.
        let c = Case { seed: 20, ..case(4, 3, 1, 4, 1) };
        let got = check_layer(world, (dispatch, unswapped_combine), &Experts::identity(3, 1), &c, 0.0);
        pinned(world, got, "rank 0 of 3, T=4 E=3 k=1 factor=1 hidden=1 seed=20: token 0 float 0: \
                            0.060837075, expected 0.5358825")
    }
}

// ANCHOR: unswapped_backward
/// Mistake 6: the dispatch's backward with the counts NOT swapped: the gradients of the
/// received rows go back as if they were laid out like the rows this rank sent.
fn unswapped_backward(world: &SimpleCommunicator, pass: &Pass, loss: &Tensor) {
    loss.backward();
    let to_experts = combine_backward(world, &pass.dispatched, &grad_or_zeros(&pass.returned));
    if pass.expert_out.requires_grad() {
        (&pass.expert_out * to_experts).sum(Kind::Float).backward();
    }
    let (d, h) = (&pass.dispatched, pass.dispatched.hidden);
    let g = values(&grad_or_zeros(&pass.received));
    let back = exchange_rows(world, &g, &d.send_counts, &d.recv_counts, h); // the mistake
    let to_tokens = tensor_on(
        &back,
        &[(back.len() / h) as i64, h as i64],
        pass.sent_rows.device(),
    );
    if pass.sent_rows.requires_grad() {
        (&pass.sent_rows * to_tokens).sum(Kind::Float).backward();
    }
}
// ANCHOR_END: unswapped_backward

toolkit::mpi_test! {
    fn the_backward_with_the_counts_not_swapped_credits_other_tokens(world at &[3]) {
        let c = Case { seed: 20, ..case(4, 3, 1, 4, 1) };
        let got = check_input_grad(world, unswapped_backward, &c, 1e-6);
        pinned(world, got, "rank 0 of 3, T=4 E=3 k=1 factor=1 hidden=1 seed=20: x's gradient \
                            (sum of kept gates · g) float 0: -0.19645968, expected 0.0910201")
    }

    fn the_right_backward_passes_the_same_case(world at &[3]) {
        check_input_grad(world, backward, &Case { seed: 20, ..case(4, 3, 1, 4, 1) }, 1e-6)
    }
}

// ANCHOR: f_not_over_k
/// Mistake 7: `f` divided by the tokens, not by the (token, choice) pairs: for k = 2 each
/// fraction doubles, the even loss becomes `2α`.
fn f_not_over_k(world: &SimpleCommunicator, routing: &Routing, experts: usize) -> Vec<f64> {
    let k = routing.k as f64;
    fractions(world, routing, experts)
        .iter()
        .map(|v| v * k)
        .collect() // the mistake
}
// ANCHOR_END: f_not_over_k

// ANCHOR: detached_p
/// Mistake 8: `P` detached (computed from the logits' values): the loss has the right
/// value and no gradient, so the router never learns to balance.
fn detached_p(
    world: &SimpleCommunicator,
    routing: &Routing,
    logits: &Tensor,
    alpha: f64,
) -> Tensor {
    aux_loss(world, routing, &logits.detach(), alpha) // the mistake
}
// ANCHOR_END: detached_p

toolkit::mpi_test! {
    fn f_not_divided_by_k_doubles_at_k_2(world at &[2]) {
        check_fractions(world, f_not_over_k, &case(6, 4, 1, 4, 1))?; // k = 1: the same
        let got = check_fractions(world, f_not_over_k, &case(6, 4, 2, 4, 1));
        pinned(world, got, "rank 0 of 2, T=6 E=4 k=2 factor=1 hidden=1 seed=5: f = \
                            [0.7142857142857143, 0.5714285714285714, 0.2857142857142857, \
                            0.42857142857142855], expected [0.35714285714285715, ")
    }

    fn a_detached_p_gives_the_router_no_gradient(world at &[2]) {
        let got = check_aux_loss(world, detached_p, &case(6, 4, 2, 4, 1), 1.0, 1e-6);
        pinned(world, got, "rank 0 of 2, T=6 E=4 k=2 factor=1 hidden=1 seed=5, α=1: the loss \
                            is right but has no gradient: your aux_loss must keep P in the logits' \
                            graph")
    }
}
