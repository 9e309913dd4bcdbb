//! A pipeline schedule: for each stage, the operations it runs, in order. Given code,
//! shared by the schedule generators (ex 7.3, 7.4) and the executor (ex 7.5).
//!
//! The communication an operation implies, and the rule the executor follows (and the
//! schedule checks assume):
//! - `Forward(m)` on stage `s`: receive micro-batch `m`'s activation from stage `s - 1`
//!   (unless `s` is the first stage), run the stage's forward pass, send the output to
//!   stage `s + 1` (unless `s` is the last).
//! - `Backward(m)` on stage `s`: receive the gradient of micro-batch `m`'s output from
//!   stage `s + 1` (unless `s` is the last), run the backward pass, send the gradient of
//!   its input to stage `s - 1` (unless `s` is the first).
//! - A send never waits for its receive (it is posted non-blocking); a receive waits until
//!   its message was sent. So a schedule deadlocks exactly when some stages wait in a cycle
//!   for messages not yet sent. (The executor of ex 7.5 completes each send at the next
//!   op's receive, a stricter rule: [`crate::send_check`] checks schedules by it.)

/// One operation of a stage: a forward or backward pass of one micro-batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Forward pass of micro-batch `m` (0-based).
    Forward(usize),
    /// Backward pass of micro-batch `m` (0-based).
    Backward(usize),
}

/// `schedule[s]`: the operations stage `s` runs in one training step, in order.
pub type Schedule = Vec<Vec<Action>>;

/// The schedules this chapter builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleKind {
    /// All forwards, then all backwards (GPipe).
    GPipe,
    /// Warm-up forwards, then one forward one backward, then cool-down backwards
    /// (1F1B, PipeDream-Flush).
    OneFOneB,
}

// --- plans by rank: a rank may hold several stages, a backward may come in two halves ---

/// What a rank does to one micro-batch on one of its stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pass {
    /// The stage's forward pass: receive the input (unless stage 0), send the output on.
    Forward,
    /// The whole backward pass: receive the output's gradient (unless the last stage),
    /// compute the gradients of the input and of the parameters, send the input's back.
    Backward,
    /// Zero-bubble's first half, on the critical path: only the input's gradient,
    /// sent back at once (the graph is kept for the second half).
    InputGrad,
    /// Zero-bubble's second half, off the critical path: the parameters' gradients; it
    /// needs no message and sends none.
    WeightGrad,
}

/// One task of a rank: `pass` of micro-batch `mb` through stage `stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Task {
    pub stage: usize,
    pub mb: usize,
    pub pass: Pass,
}

/// `plan[r]`: the tasks rank `r` runs in one training step, in order. With `p` ranks and
/// `v` model chunks per rank there are `v * p` stages, and stage `s` lives on rank
/// `s % p` as its chunk `s / p` (chunk `c` of rank `r` is stage `c * p + r`): consecutive
/// stages sit on consecutive ranks, and the last rank's chunk `c` feeds rank 0's chunk
/// `c + 1`. With `v = 1` stage `s` is rank `s`, as in a [`Schedule`].
pub type RankPlan = Vec<Vec<Task>>;

/// The rank that holds stage `stage` of a pipeline over `p` ranks.
pub fn rank_of(stage: usize, p: usize) -> usize {
    stage % p
}

/// The MPI tag of the message that task needs: the activation into `stage` (`grad` false)
/// or the gradient of its output (`grad` true) for micro-batch `mb` of `m`. Two stages of
/// one rank may exchange messages with the same neighbour rank (and, with one rank, with
/// itself), so the tag names the stage and the direction as well as the micro-batch.
pub fn tag(stage: usize, grad: bool, mb: usize, m: usize) -> i32 {
    ((2 * stage + usize::from(grad)) * m + mb) as i32
}

/// A per-stage [`Schedule`] as a plan by rank (one stage per rank, whole backwards).
pub fn by_rank(schedule: &Schedule) -> RankPlan {
    let task = |stage: usize, a: Action| match a {
        Action::Forward(mb) => Task {
            stage,
            mb,
            pass: Pass::Forward,
        },
        Action::Backward(mb) => Task {
            stage,
            mb,
            pass: Pass::Backward,
        },
    };
    schedule
        .iter()
        .enumerate()
        .map(|(s, actions)| actions.iter().map(|&a| task(s, a)).collect())
        .collect()
}
