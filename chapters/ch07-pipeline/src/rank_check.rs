//! The checker for plans by rank ([`RankPlan`]): interleaved stages (a rank holds several)
//! and split backwards (zero-bubble). Given code: the tests of ex 7.7 and 7.8 and the
//! `after_1f1b` lab and `plan_bench` use it. [`crate::schedule_check`] is the one-stage-per-rank case.
//!
//! What it verifies: with `p` ranks and `v` chunks each (`v * p` stages, stage `s` on rank
//! `s % p`), every stage runs `Forward` once for every micro-batch, then either one
//! `Backward` or an `InputGrad` followed (later) by a `WeightGrad`, each on its own rank;
//! and no deadlock: it runs the ranks on paper by the rule of [`crate::plan`] (a task
//! starts when its rank is free and its message has arrived; sends never wait; a message
//! between two stages of one rank is a message like any other).
//!
//! What it reports: when each task starts, per rank the peak activations held, its busy
//! and idle time, and the bubble in both of the field's definitions.

use crate::plan::{rank_of, Pass, RankPlan, Task};
use std::collections::HashMap;

/// How long each pass of one micro-batch through one stage takes, in time units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassCosts {
    pub forward: u64,
    pub backward: u64,
    pub input_grad: u64,
    pub weight_grad: u64,
}

impl PassCosts {
    /// Every pass one unit, a whole backward two (`B + W`): the zero-bubble paper's
    /// `F = B = W`.
    pub const SPLIT_UNIT: PassCosts = PassCosts {
        forward: 1,
        backward: 2,
        input_grad: 1,
        weight_grad: 1,
    };
    /// Forward and whole backward one unit each (per chunk): the interleaved formula's.
    pub const UNIT: PassCosts = PassCosts {
        forward: 1,
        backward: 1,
        input_grad: 1,
        weight_grad: 1,
    };

    /// The duration of `pass`.
    pub fn of(&self, pass: Pass) -> u64 {
        match pass {
            Pass::Forward => self.forward,
            Pass::Backward => self.backward,
            Pass::InputGrad => self.input_grad,
            Pass::WeightGrad => self.weight_grad,
        }
    }
}

/// One rank in the simulated step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankReport {
    /// Each task, in order, with the time it starts.
    pub starts: Vec<(u64, Task)>,
    /// Most (stage, micro-batch) pairs at once whose forward is done and whose input
    /// gradient is not (`Backward` or `InputGrad`): the activations B needs.
    pub peak_in_flight: usize,
    /// Most pairs at once whose forward is done and whose weight gradient is not
    /// (`Backward` or `WeightGrad`): what is held until the pair is finished.
    pub peak_held: usize,
    pub busy: u64,
    /// `makespan - busy`.
    pub idle: u64,
}

/// A correct plan and its timing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanReport {
    pub makespan: u64,
    pub ranks: Vec<RankReport>,
}

impl PlanReport {
    /// The idle share of all ranks' time until the step ends: `sum(idle) / (p *
    /// makespan)`, `(p-1)/(m+p-1)` for GPipe and 1F1B.
    pub fn bubble(&self) -> f64 {
        let idle: u64 = self.ranks.iter().map(|r| r.idle).sum();
        idle as f64 / (self.ranks.len() as u64 * self.makespan).max(1) as f64
    }

    /// Idle time over useful time (Megatron's definition): `(p-1)/m` for 1F1B,
    /// `(p-1)/(v*m)` for interleaved 1F1B when `p` divides `m`.
    pub fn bubble_over_useful(&self) -> f64 {
        let idle: u64 = self.ranks.iter().map(|r| r.idle).sum();
        let busy: u64 = self.ranks.iter().map(|r| r.busy).sum();
        idle as f64 / busy.max(1) as f64
    }
}

/// Checks `plan` (`p = plan.len()` ranks, `v` chunks each, `m` micro-batches) and
/// simulates it with `costs`. An error is one line: the first task that breaks the rule,
/// or what each stuck rank waits for.
pub fn check_ranks(
    plan: &RankPlan,
    v: usize,
    m: usize,
    costs: PassCosts,
) -> Result<PlanReport, String> {
    let p = plan.len();
    if p == 0 || v == 0 {
        return Err("the plan has no rank or no chunk: give one task list per rank".into());
    }
    for (r, tasks) in plan.iter().enumerate() {
        each_once(tasks, r, p, v, m)?;
    }
    simulate(plan, v * p, costs)
}

/// Rank `r`'s tasks: for each of its stages and each micro-batch, Forward, then Backward
/// or InputGrad then WeightGrad, each once.
fn each_once(tasks: &[Task], r: usize, p: usize, v: usize, m: usize) -> Result<(), String> {
    let mut done: HashMap<(usize, usize), Vec<Pass>> = HashMap::new();
    for &t in tasks {
        if t.stage >= v * p || rank_of(t.stage, p) != r || t.mb >= m {
            return Err(format!(
                "rank {r} runs {t:?}, but it holds stages {r}, {}, .. below {} and the \
                 micro-batches are 0..{m}",
                r + p,
                v * p
            ));
        }
        let seen = done.entry((t.stage, t.mb)).or_default();
        let allowed = match t.pass {
            Pass::Forward => seen.is_empty(),
            Pass::Backward | Pass::InputGrad => seen[..] == [Pass::Forward],
            Pass::WeightGrad => seen[..] == [Pass::Forward, Pass::InputGrad],
        };
        if !allowed {
            return Err(format!(
                "rank {r} runs {t:?} after {seen:?}: each (stage, micro-batch) runs Forward, \
                 then Backward or InputGrad then WeightGrad, once each"
            ));
        }
        seen.push(t.pass);
    }
    for c in 0..v {
        for mb in 0..m {
            let stage = c * p + r;
            let seen = done.get(&(stage, mb)).map(Vec::as_slice).unwrap_or(&[]);
            let whole = matches!(seen, [Pass::Forward, Pass::Backward]);
            let split = matches!(seen, [Pass::Forward, Pass::InputGrad, Pass::WeightGrad]);
            if !whole && !split {
                return Err(format!(
                    "rank {r}, stage {stage}, micro-batch {mb}: runs only {seen:?}, \
                     not a forward and a whole or split backward"
                ));
            }
        }
    }
    Ok(())
}

/// The message task `t` waits for: `(is a gradient, stage it goes to)`, or `None`.
fn needs(t: Task, stages: usize) -> Option<bool> {
    match t.pass {
        Pass::Forward if t.stage > 0 => Some(false),
        Pass::Backward | Pass::InputGrad if t.stage + 1 < stages => Some(true),
        _ => None,
    }
}

fn simulate(plan: &RankPlan, stages: usize, costs: PassCosts) -> Result<PlanReport, String> {
    let p = plan.len();
    // arrived[(grad, stage, mb)]: when the message for that stage arrived.
    let mut arrived: HashMap<(bool, usize, usize), u64> = HashMap::new();
    let (mut next, mut free) = (vec![0usize; p], vec![0u64; p]);
    let mut starts: Vec<Vec<(u64, Task)>> = vec![vec![]; p];
    loop {
        let mut moved = false;
        for r in 0..p {
            while let Some(&t) = plan[r].get(next[r]) {
                let ready = match needs(t, stages) {
                    None => Some(free[r]),
                    Some(g) => arrived.get(&(g, t.stage, t.mb)).map(|&a| a.max(free[r])),
                };
                let Some(start) = ready else { break };
                let end = start + costs.of(t.pass);
                match t.pass {
                    Pass::Forward if t.stage + 1 < stages => {
                        arrived.insert((false, t.stage + 1, t.mb), end);
                    }
                    Pass::Backward | Pass::InputGrad if t.stage > 0 => {
                        arrived.insert((true, t.stage - 1, t.mb), end);
                    }
                    _ => {}
                }
                starts[r].push((start, t));
                (free[r], next[r], moved) = (end, next[r] + 1, true);
            }
        }
        if (0..p).all(|r| next[r] == plan[r].len()) {
            break;
        }
        if !moved {
            let stuck: Vec<String> = (0..p)
                .filter_map(|r| {
                    let t = *plan[r].get(next[r])?;
                    let what = if needs(t, stages)? {
                        "gradient"
                    } else {
                        "activation"
                    };
                    Some(format!("rank {r} waits for the {what} of {t:?}"))
                })
                .collect();
            return Err(format!("deadlock: {}", stuck.join(", ")));
        }
    }
    let makespan = free.iter().copied().max().unwrap_or(0);
    let ranks = starts
        .into_iter()
        .map(|starts| {
            let busy = starts.iter().map(|(_, t)| costs.of(t.pass)).sum();
            let (peak_in_flight, peak_held) = peaks(starts.iter().map(|(_, t)| t.pass));
            RankReport {
                starts,
                peak_in_flight,
                peak_held,
                busy,
                idle: makespan - busy,
            }
        })
        .collect();
    Ok(PlanReport { makespan, ranks })
}

/// (Most forwards whose input gradient is not done, most whose weight gradient is not.)
fn peaks(passes: impl Iterator<Item = Pass>) -> (usize, usize) {
    let (mut fwd, mut held, mut most_fwd, mut most_held) = (0usize, 0usize, 0, 0);
    for pass in passes {
        match pass {
            Pass::Forward => (fwd, held) = (fwd + 1, held + 1),
            Pass::Backward => (fwd, held) = (fwd - 1, held - 1),
            Pass::InputGrad => fwd -= 1,
            Pass::WeightGrad => held -= 1,
        }
        (most_fwd, most_held) = (most_fwd.max(fwd), most_held.max(held));
    }
    (most_fwd, most_held)
}

/// Interleaved 1F1B's bubble over useful time when `p` divides `m` and a chunk's forward
/// and backward cost the same: `(p - 1) / (v * m)` (Narayanan et al. 2021); 1F1B's is
/// `(p - 1) / m`.
pub fn interleaved_bubble_over_useful(p: usize, v: usize, m: usize) -> f64 {
    (p - 1) as f64 / (v * m) as f64
}

/// ZB-H1's step length with `F = B = W = 1` and `m >= p`: `3m + p - 1`, an idle time of
/// `(p - 1)(F + B - W) = p - 1` per rank where 1F1B's is `(p - 1)(F + B + W) = 3(p - 1)`
/// (Qi et al. 2023, "Zero Bubble Pipeline Parallelism").
pub fn zero_bubble_h1_makespan(p: usize, m: usize) -> u64 {
    (3 * m + p - 1) as u64
}
