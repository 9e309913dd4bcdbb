//! Exercises 7.3 and 7.4: the two schedules, as lists of ops per stage.
//!
//! Check: `make check CH=07` (tests `ex7_3_*` and `ex7_4_*`: every p in 1..=8 and m in
//! 1..=16, run through the given checker [`crate::schedule_check`]: each micro-batch
//! forward then backward once per stage, no deadlock, the activations held, the bubble).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::plan::{Action, Schedule, ScheduleKind};

// ANCHOR: gpipe
/// GPipe for `p` stages and `m` micro-batches: on every stage, the forwards of all
/// micro-batches, then their backwards.
pub fn gpipe(p: usize, m: usize) -> Schedule {
    // TODO(ex 7.3): one list per stage: Forward(0..m), then the m backwards
    todo!("ex 7.3: every stage runs all m forwards, then all m backwards")
}
// ANCHOR_END: gpipe

// ANCHOR: one_f_one_b
/// 1F1B (PipeDream-Flush) for `p` stages and `m` micro-batches. Stage `s` runs a warm-up
/// of `min(p - s - 1, m)` forwards, then alternates one forward and one backward while
/// forwards remain, then a cool-down of the remaining backwards. Micro-batches go forward
/// in order 0, 1, ... and backward in order 0, 1, ...
pub fn one_f_one_b(p: usize, m: usize) -> Schedule {
    // TODO(ex 7.4): per stage: warm-up forwards, then forward/backward pairs, then backwards
    todo!("ex 7.4: warm-up, steady one-forward-one-backward, cool-down, per stage")
}
// ANCHOR_END: one_f_one_b

/// The schedule of `kind` (given: calls yours).
pub fn build(kind: ScheduleKind, p: usize, m: usize) -> Schedule {
    match kind {
        ScheduleKind::GPipe => gpipe(p, m),
        ScheduleKind::OneFOneB => one_f_one_b(p, m),
    }
}
