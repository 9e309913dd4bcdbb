//! Chapter 15 exercise 15.3, solved: the elastic supervisor's two decisions.

use crate::supervisor::{Decision, Ended, Launch, Now};

// ANCHOR: answer
/// The most ranks, at most `alive`, over which `batch` splits evenly.
pub fn restart_size(alive: usize, batch: usize) -> Option<usize> {
    (1..=alive).rev().find(|n| batch.is_multiple_of(*n))
}

/// Done, a relaunch at the size that fits (resumed when a checkpoint exists), or give up.
pub fn next_launch(last: &Launch, ended: Ended, now: &Now) -> Decision {
    if ended == Ended::Finished {
        return Decision::Done;
    }
    if now.restarts_left == 0 {
        let why = format!(
            "the launch on {} ranks failed and no restart is left",
            last.ranks
        );
        return Decision::GiveUp(why);
    }
    let resume = now.saved;
    match restart_size(now.alive, now.batch) {
        Some(ranks) => Decision::Relaunch(Launch { ranks, resume }),
        None => Decision::GiveUp(format!("no rank is left to run on ({} alive)", now.alive)),
    }
}
// ANCHOR_END: answer
