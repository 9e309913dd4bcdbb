//! Shared checks of exercise 11.4 (the load-balancing loss), used by the tests and by the
//! planted mistakes: worked examples of the formula without MPI, and `f` and the loss
//! over the ranks against one process holding every rank's tokens. The routings are the
//! tests' own ([`super::layer::routing_of`]), so these checks do not wait for ex 11.1.

use super::grad::close;
use super::layer::routing_of;
use super::Case;
use ch11::nets::{grad_or_zeros, tensor};
use ch11::routing::Routing;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};

/// The formula (ex 11.4's `switch_loss`).
pub type SwitchLoss = fn(f64, &[f64], &[f64]) -> f64;
/// `f` over the ranks (ex 11.4's `fractions`).
pub type Fractions = fn(&SimpleCommunicator, &Routing, usize) -> Vec<f64>;
/// The loss over the ranks (ex 11.4's `aux_loss`).
pub type AuxLoss = fn(&SimpleCommunicator, &Routing, &Tensor, f64) -> Tensor;

/// Worked examples: (what, α, f, P, the loss worked by hand).
pub fn examples() -> Vec<(&'static str, f64, Vec<f64>, Vec<f64>)> {
    vec![
        ("even, E=4", 0.01, vec![0.25; 4], vec![0.25; 4]),
        (
            "all on expert 0, E=4",
            0.01,
            vec![1.0, 0.0, 0.0, 0.0],
            vec![1.0, 0.0, 0.0, 0.0],
        ),
        (
            "E=2, f=(3/4, 1/4), P=(0.6, 0.4)",
            0.1,
            vec![0.75, 0.25],
            vec![0.6, 0.4],
        ),
    ]
}

/// The formula on the worked examples: `α` when even (0.01), `α·E` when every token and
/// all the probability go to one expert (0.04), `0.1·2·(0.75·0.6 + 0.25·0.4) = 0.11`.
pub fn check_switch_loss(loss: SwitchLoss) -> Result<(), String> {
    for ((what, alpha, f, p), want) in examples().into_iter().zip([0.01, 0.04, 0.11]) {
        let got = loss(alpha, &f, &p);
        if (got - want).abs() > 1e-12 {
            return Err(format!("{what}, α={alpha}: loss {got}, expected {want}"));
        }
    }
    Ok(())
}

/// One process: `f` from every rank's routing, each choice counted, divided by `k·T`.
fn all_fractions(case: &Case, p: usize) -> Vec<f64> {
    fractions_of(case, 0..p, false)
}

/// `f` over the ranks `ranks`, counting every choice or (`kept_only`) the kept ones: the
/// right answer over all ranks, and two classic slips.
fn fractions_of(case: &Case, ranks: std::ops::Range<usize>, kept_only: bool) -> Vec<f64> {
    let mut n = vec![0.0f64; case.experts];
    let mut tokens = 0;
    for s in ranks {
        let r = routing_of(case, s);
        tokens += r.tokens;
        let counted = r.choices.iter().filter(|c| c.kept || !kept_only);
        counted.for_each(|c| n[c.expert] += 1.0);
    }
    n.iter()
        .map(|v| v / (case.k * tokens).max(1) as f64)
        .collect()
}

/// `f` on this rank against one process's, exactly (counts and one division each).
pub fn check_fractions(
    world: &SimpleCommunicator,
    f: Fractions,
    case: &Case,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let got = f(world, &routing_of(case, me), case.experts);
    let want = all_fractions(case, p);
    if got == want {
        return Ok(());
    }
    let k = case.k as f64;
    let why = if case.k > 1
        && got
            .iter()
            .zip(&want)
            .all(|(g, w)| (g - w * k).abs() < 1e-12)
    {
        ": k times the expected: your fractions divides by the tokens T, not by the k·T \
         (token, choice) pairs"
    } else if got == fractions_of(case, 0..p, true) {
        ": your fractions counts only the kept choices: f counts every choice the router \
         made, kept or dropped (a dropped token still chose that expert)"
    } else if p > 1 && got == fractions_of(case, me..me + 1, false) {
        ": your fractions gives this rank's own f: sum the counts and the tokens over the \
         ranks (one allreduce) before dividing"
    } else {
        ""
    };
    Err(format!(
        "rank {me} of {p}, {}: f = {got:?}, expected {want:?} (pairs per expert / (k·T), all \
         ranks){why}",
        case.name()
    ))
}

/// The loss and this rank's logits' gradient against one process (every rank's logits
/// in one tensor, `P` their softmax's mean), within `tol · (1 + |want|)`.
pub fn check_aux_loss(
    world: &SimpleCommunicator,
    aux: AuxLoss,
    case: &Case,
    alpha: f64,
    tol: f32,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {me} of {p}, {}, α={alpha}", case.name());
    let e = case.experts as i64;
    let leaf = |s: usize| {
        let l = case.inputs(s).0;
        tensor(&l, &[(l.len() as i64) / e, e]).set_requires_grad(true)
    };
    let logits = leaf(me);
    let got = aux(world, &routing_of(case, me), &logits, alpha);
    let all: Vec<Tensor> = (0..p).map(leaf).collect();
    let probs = Tensor::cat(&all, 0).softmax(-1, Kind::Float);
    let mean = probs.mean_dim(&[0i64][..], false, Kind::Float);
    let f: Vec<f32> = all_fractions(case, p).iter().map(|&v| v as f32).collect();
    let want = (mean * tensor(&f, &[e])).sum(Kind::Float) * (alpha * case.experts as f64);
    want.backward();
    close(&at, "the loss", &got, &want, tol)?;
    if !got.requires_grad() {
        return Err(format!(
            "{at}: the loss is right but has no gradient: your aux_loss must keep P in the logits' graph (computed from the logits tensor, not from its values)"
        ));
    }
    got.backward();
    close(
        &at,
        "the logits' gradient",
        &grad_or_zeros(&logits),
        &grad_or_zeros(&all[me]),
        tol,
    )
}
