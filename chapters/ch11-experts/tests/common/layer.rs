//! Shared checks of exercise 11.2 (dispatch and combine) under mpirun, used by the tests
//! and by the planted mistakes. Each rank routes its own tokens with the tests' own
//! router (`reference_route`, so these checks do not wait for ex 11.1), and every rank
//! can rebuild any rank's inputs and routing from the case, so a receiver checks each
//! row it got against the sender's routing. Each returns `Err(message)` naming the case.

use super::{capacity_exact, reference_route, Case};
use ch11::config::Layout;
use ch11::experts::Experts;
use ch11::routing::{Dispatched, Routing};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A dispatch (ex 11.2's `dispatch`).
pub type Dispatch = fn(&SimpleCommunicator, &Layout, &Routing, &[f32], usize) -> Dispatched;
/// A combine (ex 11.2's `combine`).
pub type Combine = fn(&SimpleCommunicator, &Routing, &Dispatched, &[f32]) -> Vec<f32>;

/// The tests' routing of rank `rank`'s tokens in `case`.
pub fn routing_of(case: &Case, rank: usize) -> Routing {
    let cap = capacity_exact(case.tokens_of(rank), case.experts, case.k, case.quarters);
    reference_route(&case.cfg(), &case.inputs(rank).0, cap)
}

fn layout(world: &SimpleCommunicator, case: &Case) -> Layout {
    Layout {
        experts: case.experts,
        ranks: world.size() as usize,
    }
}

/// Tokens are conserved: this rank sent each of its kept choices once, to the rank that
/// holds its expert; it received, from each rank and for each of its experts, exactly the
/// rows that rank routed there, in token order; and the rows received per expert, summed
/// over the ranks, equal the routers' loads summed over the ranks.
pub fn check_dispatch(
    world: &SimpleCommunicator,
    dispatch: Dispatch,
    case: &Case,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let lay = layout(world, case);
    let (routing, x) = (routing_of(case, me), case.inputs(me).1);
    let got = dispatch(world, &lay, &routing, &x, case.hidden);
    let at = format!("rank {me} of {p}, {}", case.name());
    let mut sent = got.sent.clone();
    sent.sort();
    let kept: Vec<usize> = (0..routing.choices.len())
        .filter(|&i| routing.choices[i].kept)
        .collect();
    if sent != kept {
        return Err(format!(
            "{at}: sent choices {:?}, but the kept ones are {kept:?}",
            got.sent
        ));
    }
    for r in 0..p {
        let n = kept
            .iter()
            .filter(|&&i| lay.owner(routing.choices[i].expert) == r)
            .count();
        if got.send_counts.get(r) != Some(&n) {
            return Err(format!(
                "{at}: send_counts {:?}, but {n} kept choices go to rank {r}",
                got.send_counts
            ));
        }
    }
    // Every row received, against the sender's routing.
    let (h, m, mine) = (case.hidden, lay.max_local(), lay.local(me));
    let mut row = 0;
    let mut received = vec![0u64; case.experts];
    for s in 0..p {
        let (theirs, sx) = (routing_of(case, s), case.inputs(s).1);
        for e in mine.clone() {
            let want: Vec<usize> = (0..theirs.choices.len())
                .filter(|&i| theirs.choices[i].kept && theirs.choices[i].expert == e)
                .map(|i| i / case.k)
                .collect();
            let n = got
                .recv_expert_counts
                .get(s * m + e - mine.start)
                .copied()
                .unwrap_or(0);
            if n != want.len() {
                return Err(format!(
                    "{at}: {n} rows from rank {s} for expert {e}; it routed {} there",
                    want.len()
                ));
            }
            for t in want {
                let (g, w) = (
                    got.rows.get(row * h..(row + 1) * h),
                    &sx[t * h..(t + 1) * h],
                );
                if g != Some(w) {
                    // Another token of the sender's: the rows went in another order.
                    let other =
                        (0..sx.len() / h.max(1)).find(|&u| g == Some(&sx[u * h..(u + 1) * h]));
                    let why = match other {
                        Some(u) => format!(
                            ": it is token {u}'s: the rows must go sorted by expert (by \
                             destination rank, then expert), in token order within an expert"
                        ),
                        None => String::new(),
                    };
                    return Err(format!(
                        "{at}: row {row} (from rank {s} for expert {e}) is not token {t}'s: got {g:?}, expected {w:?}{why}"
                    ));
                }
                row += 1;
            }
            received[e] += n as u64;
        }
    }
    if got.rows.len() != row * h || got.recv_counts.iter().sum::<usize>() != row {
        return Err(format!(
            "{at}: {} floats and recv_counts {:?}; expected {row} rows",
            got.rows.len(),
            got.recv_counts
        ));
    }
    let load: Vec<u64> = routing.load.iter().map(|&n| n as u64).collect();
    let (mut all_load, mut all_got) = (vec![0u64; case.experts], vec![0u64; case.experts]);
    world.all_reduce_into(&load[..], &mut all_load[..], SystemOperation::sum());
    world.all_reduce_into(&received[..], &mut all_got[..], SystemOperation::sum());
    if all_load != all_got {
        return Err(format!(
            "{at}: rows received per expert {all_got:?}, routed {all_load:?}"
        ));
    }
    Ok(())
}

/// The expected output: per token, from zeros, `gate × y` for its kept choices in order,
/// `y` being the expert's output computed here (every expert local).
pub fn one_process(routing: &Routing, experts: &Experts, x: &[f32]) -> Vec<f32> {
    let h = experts.hidden;
    let mut out = vec![0.0f32; routing.tokens * h];
    for (i, c) in routing.choices.iter().enumerate().filter(|(_, c)| c.kept) {
        let t = i / routing.k;
        let y = experts.apply(c.expert, &x[t * h..(t + 1) * h]);
        for d in 0..h {
            out[t * h + d] += c.gate * y[d];
        }
    }
    out
}

/// Dispatch, the experts, combine on this rank's tokens; compared with [`one_process`]
/// float by float: `|got - want| <= tol · (1 + |want|)` (`tol = 0`: exactly).
pub fn check_layer(
    world: &SimpleCommunicator,
    (dispatch, combine): (Dispatch, Combine),
    experts: &Experts,
    case: &Case,
    tol: f32,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    let lay = layout(world, case);
    let (routing, x) = (routing_of(case, me), case.inputs(me).1);
    let sent = dispatch(world, &lay, &routing, &x, case.hidden);
    let y = experts.run(&lay, me, &sent);
    let got = combine(world, &routing, &sent, &y);
    let want = one_process(&routing, experts, &x);
    if got.len() != want.len() {
        return Err(format!(
            "rank {me} of {p}, {}: {} floats out, expected {}",
            case.name(),
            got.len(),
            want.len()
        ));
    }
    let h = case.hidden;
    let near = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .all(|(g, w)| (g - w).abs() <= tol * (1.0 + w.abs()))
    };
    // The classic slip: the outputs added without their gates (every gate 1).
    let mut ungated = routing.clone();
    ungated.choices.iter_mut().for_each(|c| c.gate = 1.0);
    let why = match near(&got, &one_process(&ungated, experts, &x)) {
        true => {
            ": the experts' outputs added without their gates: your combine must weight \
                 each kept choice's output by its gate"
        }
        false => "",
    };
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if (g - w).abs() > tol * (1.0 + w.abs()) {
            let t = i / h;
            let mine = &routing.choices[t * case.k..(t + 1) * case.k];
            return Err(format!(
                "rank {me} of {p}, {}: token {t} float {}: {g}, expected {w} (its choices {mine:?}){why}",
                case.name(), i % h
            ));
        }
    }
    Ok(())
}
