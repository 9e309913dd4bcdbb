//! Given: the one place where the trainer gets its schedule.
//!
//! For now the reference schedules ([`crate::greedy`]); with the chapter's generators in
//! place (ex 7.3, 7.4), this is where they are plugged in.

use crate::plan::{Kind, Schedule};

// ANCHOR: schedule_for
/// The schedule the trainer runs for `kind`, `p` stages and `m` micro-batches.
pub fn schedule_for(kind: Kind, p: usize, m: usize) -> Schedule {
    crate::greedy::schedule(kind, p, m)
}
// ANCHOR_END: schedule_for
