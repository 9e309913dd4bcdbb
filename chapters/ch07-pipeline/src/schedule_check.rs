//! The schedule checker: runs a [`Schedule`] on paper, by the communication rule of
//! [`crate::plan`], and says whether it is correct and what it costs. Given code: the
//! tests of ex 7.3 and 7.4 and the `schedules` lab use it.
//!
//! What it verifies:
//! - every stage runs `Forward(mb)` once and then `Backward(mb)` once, for every
//!   micro-batch `mb` in `0..m` (and nothing else). This is also what makes every receive
//!   match a send: the message stage `s` waits for is sent by an op its neighbour runs;
//! - no deadlock: it simulates the stages step by step (an op starts when its stage is
//!   free and its input message has arrived; sends never wait) and fails, naming the
//!   stages that wait in a cycle and what each waits for, when no stage can move.
//!
//! What it reports: when each op starts (with the op costs given, in abstract time units;
//! messages take no time), per stage the peak number of activations held (forwards done
//! whose backward is not) and the idle time, and the bubble: the idle fraction of the
//! stages' time until the step ends.

use crate::plan::{Action, Schedule};

/// How long an op takes, in time units (the same on every stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// A forward pass of one micro-batch through one stage.
    pub forward: u64,
    /// A backward pass of one micro-batch through one stage.
    pub backward: u64,
}

/// Forward and backward of one time unit each: the costs of the bubble formula.
pub const UNIT: Costs = Costs {
    forward: 1,
    backward: 1,
};

impl Costs {
    /// The duration of `op`.
    pub fn of(&self, op: Action) -> u64 {
        match op {
            Action::Forward(_) => self.forward,
            Action::Backward(_) => self.backward,
        }
    }
}

/// One stage in the simulated step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageReport {
    /// Each op of the stage, in order, with the time it starts.
    pub starts: Vec<(u64, Action)>,
    /// The most activations held at once (forwards done whose backward is not done).
    pub peak_in_flight: usize,
    /// Time spent computing.
    pub busy: u64,
    /// Time spent waiting before the step ends (`makespan - busy`).
    pub idle: u64,
}

/// What the checker found: a correct schedule and its timing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// When the last op of the step ends.
    pub makespan: u64,
    /// One entry per stage.
    pub stages: Vec<StageReport>,
}

impl Report {
    /// The idle fraction of all stages' time: `sum(idle) / (p * makespan)`.
    pub fn bubble(&self) -> f64 {
        let idle: u64 = self.stages.iter().map(|s| s.idle).sum();
        idle as f64 / (self.stages.len() as u64 * self.makespan).max(1) as f64
    }
}

/// The bubble of GPipe and 1F1B when a forward and a backward cost the same on every
/// stage: `(p - 1) / (m + p - 1)`.
pub fn bubble_formula(p: usize, m: usize) -> f64 {
    (p - 1) as f64 / (m + p - 1) as f64
}

// ANCHOR: needs
/// The message `op` on stage `s` of `p` waits for: `(is a gradient, micro-batch, from
/// stage)`, or `None` when it needs none (a forward on the first stage, a backward on the
/// last).
pub fn needs(op: Action, s: usize, p: usize) -> Option<(bool, usize, usize)> {
    match op {
        Action::Forward(mb) if s > 0 => Some((false, mb, s - 1)),
        Action::Backward(mb) if s + 1 < p => Some((true, mb, s + 1)),
        _ => None,
    }
}
// ANCHOR_END: needs

/// Checks that `schedule` runs each of `m` micro-batches forward then backward once on
/// every stage, and simulates it with `costs`. An error is one line: the first op that
/// breaks the rule, or the deadlock cycle.
pub fn check(schedule: &Schedule, m: usize, costs: Costs) -> Result<Report, String> {
    let p = schedule.len();
    if p == 0 {
        return Err("the schedule has no stage: give one list of ops per stage".into());
    }
    for (s, ops) in schedule.iter().enumerate() {
        each_once(ops, s, m)?;
    }
    simulate(schedule, m, costs)
}

/// Stage `s`'s ops: `Forward(mb)` once then `Backward(mb)` once for every `mb < m`.
fn each_once(ops: &[Action], s: usize, m: usize) -> Result<(), String> {
    let (mut fwd, mut bwd) = (vec![false; m], vec![false; m]);
    for &op in ops {
        let (Action::Forward(mb) | Action::Backward(mb)) = op;
        if mb >= m {
            return Err(format!(
                "stage {s} runs {op:?}, but the micro-batches are 0..={}: every index \
                 must be below m = {m}",
                m as i64 - 1
            ));
        }
        if matches!(op, Action::Backward(_)) && !fwd[mb] {
            return Err(format!(
                "stage {s} runs {op:?} before Forward({mb}): a backward needs the \
                 activations its forward kept"
            ));
        }
        let (done, what) = match op {
            Action::Forward(_) => (&mut fwd, "forward"),
            Action::Backward(_) => (&mut bwd, "backward"),
        };
        if done[mb] {
            return Err(format!(
                "stage {s} runs {op:?} twice: each micro-batch goes {what} once per stage"
            ));
        }
        done[mb] = true;
    }
    for mb in 0..m {
        for (done, op) in [(&fwd, Action::Forward(mb)), (&bwd, Action::Backward(mb))] {
            if !done[mb] {
                return Err(format!(
                    "stage {s} never runs {op:?}: every micro-batch goes forward and \
                     backward once on every stage"
                ));
            }
        }
    }
    Ok(())
}

/// Runs the stages until all are done or none can move. `arrived[g][s][mb]`: when the
/// message for micro-batch `mb` to stage `s` arrived (`g` = 1 for a gradient).
fn simulate(schedule: &Schedule, m: usize, costs: Costs) -> Result<Report, String> {
    let p = schedule.len();
    let mut arrived = vec![vec![vec![None::<u64>; m]; p]; 2];
    let mut next = vec![0usize; p]; // index of each stage's next op
    let mut free = vec![0u64; p]; // when each stage is free
    let mut starts: Vec<Vec<(u64, Action)>> = vec![vec![]; p];
    loop {
        let mut moved = false;
        for s in 0..p {
            while let Some(&op) = schedule[s].get(next[s]) {
                let ready = match needs(op, s, p) {
                    None => Some(free[s]),
                    Some((grad, mb, _)) => arrived[grad as usize][s][mb].map(|t| t.max(free[s])),
                };
                let Some(start) = ready else { break };
                let end = start + costs.of(op);
                match op {
                    Action::Forward(mb) if s + 1 < p => arrived[0][s + 1][mb] = Some(end),
                    Action::Backward(mb) if s > 0 => arrived[1][s - 1][mb] = Some(end),
                    _ => {}
                }
                starts[s].push((start, op));
                free[s] = end;
                next[s] += 1;
                moved = true;
            }
        }
        if (0..p).all(|s| next[s] == schedule[s].len()) {
            break;
        }
        if !moved {
            return Err(deadlock(schedule, &next));
        }
    }
    let makespan = free.iter().copied().max().unwrap_or(0);
    let stages = starts
        .into_iter()
        .map(|starts| {
            let busy: u64 = starts.iter().map(|&(_, op)| costs.of(op)).sum();
            StageReport {
                peak_in_flight: peak(starts.iter().map(|&(_, op)| op)),
                starts,
                busy,
                idle: makespan - busy,
            }
        })
        .collect();
    Ok(Report { makespan, stages })
}

/// The most forwards done whose backward is not, along `ops`.
fn peak(ops: impl Iterator<Item = Action>) -> usize {
    let (mut now, mut most) = (0usize, 0usize);
    for op in ops {
        match op {
            Action::Forward(_) => now += 1,
            Action::Backward(_) => now = now.saturating_sub(1),
        }
        most = most.max(now);
    }
    most
}

/// The one-line story of a deadlock: the stages that wait for each other in a cycle,
/// from the lowest stage on it, then the stages stuck behind them.
fn deadlock(schedule: &Schedule, next: &[usize]) -> String {
    let p = schedule.len();
    let waits = |s: usize| -> Option<(bool, usize, usize)> {
        let op = *schedule[s].get(next[s])?;
        needs(op, s, p)
    };
    let describe = |s: usize| -> String {
        match waits(s) {
            Some((grad, mb, from)) => format!(
                "stage {s} waits for the {} of micro-batch {mb} from stage {from}",
                if grad { "gradient" } else { "activation" }
            ),
            None => format!("stage {s} is stuck"),
        }
    };
    // Follow "waits for" from the first stuck stage until a stage repeats.
    let first = (0..p).find(|&s| next[s] < schedule[s].len()).unwrap_or(0);
    let mut path = vec![first];
    while let Some((_, _, from)) = waits(*path.last().unwrap()) {
        if let Some(at) = path.iter().position(|&s| s == from) {
            path.drain(..at);
            break;
        }
        path.push(from);
    }
    let low = path
        .iter()
        .position(|s| s == path.iter().min().unwrap())
        .unwrap();
    path.rotate_left(low);
    let cycle: Vec<String> = path.iter().map(|&s| describe(s)).collect();
    let behind: Vec<String> = (0..p)
        .filter(|s| next[*s] < schedule[*s].len() && !path.contains(s))
        .map(|s| s.to_string())
        .collect();
    let mut text = format!(
        "deadlock: {}; each sends what the other waits for only after its own receive",
        cycle.join(", ")
    );
    match behind.len() {
        0 => {}
        1 => text.push_str(&format!(" (stage {} waits behind them)", behind[0])),
        _ => text.push_str(&format!(" (stages {} wait behind them)", behind.join(", "))),
    }
    text
}
