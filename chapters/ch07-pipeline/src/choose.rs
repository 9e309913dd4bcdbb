//! Given: the one place where the trainer gets its schedule.
//!
//! The trainer runs your schedule generators (ex 7.3, 7.4, through
//! [`crate::schedules::build`]). The tests of the executor use the reference schedules of
//! [`crate::greedy`] instead, so that ex 7.5 does not depend on ex 7.3 and 7.4.

use crate::plan::{Schedule, ScheduleKind};

// ANCHOR: schedule_for
/// The schedule the trainer runs for `kind`, `p` stages and `m` micro-batches.
pub fn schedule_for(kind: ScheduleKind, p: usize, m: usize) -> Schedule {
    crate::schedules::build(kind, p, m)
}
// ANCHOR_END: schedule_for
