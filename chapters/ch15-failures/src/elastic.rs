//! Chapter 15 exercise 15.3: the elastic supervisor's two decisions. When a rank dies, the
//! job ends; the supervisor (`crate::supervisor`, given) starts it again from its last
//! checkpoint, on the ranks still available. Which size, and whether to start at all, is
//! yours: the most ranks that are alive *and* split the global batch evenly (a data-
//! parallel trainer gives each rank `batch / ranks` samples), resumed from the checkpoint
//! when there is one, and a limit on restarts, so that a job that fails at every launch
//! ends instead of looping. Check with `make check CH=15`.
#![allow(unused_variables)] // the stubs do not use their arguments yet

use crate::supervisor::{Decision, Ended, Launch, Now};

// ANCHOR: restart_size
/// The size of the next launch: the most ranks, at most `alive`, over which the global
/// batch `batch` splits evenly; `None` when no rank is alive.
pub fn restart_size(alive: usize, batch: usize) -> Option<usize> {
    // TODO(ex 15.3): count down from `alive` to the first size that divides the batch
    todo!("ex 15.3: the elastic supervisor's decisions")
}
// ANCHOR_END: restart_size

// ANCHOR: next_launch
/// What the supervisor does once launch `last` has ended as `ended`, given `now` (the
/// ranks alive, the batch, the restarts left, whether a checkpoint is saved): `Done` after
/// a launch that finished; after a failure, a relaunch at [`restart_size`] that resumes
/// when a checkpoint exists, or `GiveUp` with the reason in one line when no restart is
/// left or no rank is.
pub fn next_launch(last: &Launch, ended: Ended, now: &Now) -> Decision {
    // TODO(ex 15.3): finished, no restart left, no size, or a relaunch
    todo!("ex 15.3: the elastic supervisor's decisions")
}
// ANCHOR_END: next_launch
