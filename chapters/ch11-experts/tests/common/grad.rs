//! Shared checks of exercise 11.3 (the backward through the exchanges) under mpirun,
//! used by the tests and by the planted mistakes. Each rank builds its inputs from the
//! case ([`super::Case::inputs`]) and an upstream gradient `g` from the seed, so every
//! rank can rebuild every rank's part and run the whole layer in one process. Each
//! returns `Err(message)` naming the case and the rank.

use super::Case;
use ch11::config::Layout;
use ch11::experts::Experts;
use ch11::nets::{grad_or_zeros, tensor, values, ExpertNets};
use ch11::pass::{forward, one_process, Pass};
use ch11::task::Rng;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device::Cpu, Kind, Tensor};

/// A layer's backward (ex 11.3's `backward`).
pub type Backward = fn(&SimpleCommunicator, &Pass, &Tensor);

/// Rank `rank`'s leaves in `case`: `x` and `logits`, both requiring grad, and the
/// upstream gradient `g` of the output (normal, from the seed).
pub fn leaves(case: &Case, rank: usize) -> (Tensor, Tensor, Tensor) {
    let (t, e, h) = (
        case.tokens_of(rank) as i64,
        case.experts as i64,
        case.hidden as i64,
    );
    let (logits, x) = case.inputs(rank);
    let mut rng = Rng::new(case.seed ^ 0xabcd ^ rank as u64);
    let g: Vec<f32> = (0..t * h).map(|_| rng.normal()).collect();
    let leaf = |v: &[f32], s: &[i64]| tensor(v, s).set_requires_grad(true);
    (
        leaf(&x, &[t, h]),
        leaf(&logits, &[t, e]),
        tensor(&g, &[t, h]),
    )
}

/// Compares two tensors float by float: `|got - want| <= tol · (1 + |want|)`.
pub fn close(at: &str, what: &str, got: &Tensor, want: &Tensor, tol: f32) -> Result<(), String> {
    let (g, w) = (values(got), values(want));
    if g.len() != w.len() {
        return Err(format!(
            "{at}: {what}: {} floats, expected {}",
            g.len(),
            w.len()
        ));
    }
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if a.is_nan() || (a - b).abs() > tol * (1.0 + b.abs()) {
            return Err(format!("{at}: {what} float {i}: {a}, expected {b}"));
        }
    }
    Ok(())
}

/// Identity experts, the loss `sum(out · g)`: `x`'s gradient at token `t` must be
/// `(sum of t's kept gates) · g[t]` (0 for a token all of whose choices were dropped),
/// within `tol · (1 + |want|)` (the gates are the router's, computed in f64).
pub fn check_input_grad(
    world: &SimpleCommunicator,
    backward: Backward,
    case: &Case,
    tol: f32,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {me} of {p}, {}", case.name());
    let lay = Layout {
        experts: case.experts,
        ranks: p,
    };
    let nets = ExpertNets::new(
        &Experts::identity(case.experts, case.hidden),
        lay.local(me),
        Cpu,
    );
    let (x, logits, g) = leaves(case, me);
    let pass = forward(world, &case.cfg(), &nets, &x, &logits)?;
    backward(world, &pass, &(&pass.out * &g).sum(Kind::Float));
    let kept: Vec<f32> = pass
        .routing
        .choices
        .chunks(case.k)
        .map(|c| c.iter().filter(|c| c.kept).map(|c| c.gate).sum())
        .collect();
    let want = g * tensor(&kept, &[kept.len() as i64, 1]);
    close(
        &at,
        "x's gradient (sum of kept gates · g)",
        &grad_or_zeros(&x),
        &want,
        tol,
    )
}

/// Linear experts, the loss `sum(out · g)` on every rank: this rank's gradients of `x`
/// and of the logits, and of the experts it holds (`W` and `b`), against the whole layer
/// in one process (every rank's tokens, one loss summed over them, every expert local),
/// within `tol · (1 + |want|)`.
pub fn check_against_one_process(
    world: &SimpleCommunicator,
    backward: Backward,
    case: &Case,
    tol: f32,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {me} of {p}, {}", case.name());
    let lay = Layout {
        experts: case.experts,
        ranks: p,
    };
    let ex = Experts::linear(case.experts, case.hidden, case.seed + 1);
    let nets = ExpertNets::new(&ex, lay.local(me), Cpu);
    let (x, logits, g) = leaves(case, me);
    let pass = forward(world, &case.cfg(), &nets, &x, &logits)?;
    backward(world, &pass, &(&pass.out * &g).sum(Kind::Float));
    let all = ExpertNets::new(&ex, 0..case.experts, Cpu);
    let mine = (0..p).map(|s| leaves(case, s)).collect::<Vec<_>>();
    let mut total = Tensor::zeros([], (Kind::Float, tch::Device::Cpu));
    for (xs, ls, gs) in &mine {
        total += (one_process(&case.cfg(), &all, xs, ls)? * gs).sum(Kind::Float);
    }
    total.backward();
    let (x1, l1, _) = &mine[me];
    close(
        &at,
        "x's gradient",
        &grad_or_zeros(&x),
        &grad_or_zeros(x1),
        tol,
    )?;
    close(
        &at,
        "the logits' gradient",
        &grad_or_zeros(&logits),
        &grad_or_zeros(l1),
        tol,
    )?;
    for (l, e) in lay.local(me).enumerate() {
        let (w, b) = (&nets.weights[l], &nets.biases[l]);
        let what = format!("expert {e}'s W gradient");
        close(
            &at,
            &what,
            &grad_or_zeros(w),
            &grad_or_zeros(&all.weights[e]),
            tol,
        )?;
        let what = format!("expert {e}'s b gradient");
        close(
            &at,
            &what,
            &grad_or_zeros(b),
            &grad_or_zeros(&all.biases[e]),
            tol,
        )?;
    }
    Ok(())
}
