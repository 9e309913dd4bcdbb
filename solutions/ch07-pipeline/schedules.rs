//! Exercises 7.3 and 7.4: solutions. Compiled instead of the stubs by `--features
//! solution` (`make run CH=07 SOLUTION=1`, `cargo test -p ch07-pipeline --features
//! solution`).

use crate::plan::{Action, Schedule, ScheduleKind};

// ANCHOR: gpipe
/// GPipe: all forwards, then all backwards, in the forwards' order. Any backward order is
/// correct; this one makes every link carry its messages in the order the receiver
/// consumes them, and differs from 1F1B only in where the backwards go.
pub fn gpipe(p: usize, m: usize) -> Schedule {
    let stage: Vec<Action> = (0..m)
        .map(Action::Forward)
        .chain((0..m).map(Action::Backward))
        .collect();
    vec![stage; p]
}
// ANCHOR_END: gpipe

// ANCHOR: one_f_one_b
/// 1F1B: warm-up of `min(p - s - 1, m)` forwards, steady forward/backward pairs, then the
/// cool-down backwards.
pub fn one_f_one_b(p: usize, m: usize) -> Schedule {
    (0..p)
        .map(|s| {
            let warmup = (p - s - 1).min(m);
            let mut ops: Vec<Action> = (0..warmup).map(Action::Forward).collect();
            for i in 0..m - warmup {
                ops.push(Action::Forward(warmup + i));
                ops.push(Action::Backward(i));
            }
            ops.extend((m - warmup..m).map(Action::Backward));
            ops
        })
        .collect()
}
// ANCHOR_END: one_f_one_b

/// The schedule of `kind` (given: calls yours).
pub fn build(kind: ScheduleKind, p: usize, m: usize) -> Schedule {
    match kind {
        ScheduleKind::GPipe => gpipe(p, m),
        ScheduleKind::OneFOneB => one_f_one_b(p, m),
    }
}
