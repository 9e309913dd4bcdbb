//! Given: the lab's figure of one ZeRO step on the ring, drawn from the messages the
//! ranks really sent (the harness's trace, drawn by `toolkit::trace::draw`).
//!
//! Each send of the first step is marked with the block of the flat buffer it carried:
//! `g3` for a gradient block in the reduce-scatter, `p3` for a parameter block in the
//! allgather (the reduce-scatter's N - 1 sends come first in each rank's program order).

use crate::halves::Halves;
use mpi::topology::SimpleCommunicator;
use toolkit::trace::{self, Traced};

/// A mark for a parameter block, added to the block number.
const PARAMS: i64 = 1_000_000;

/// `log` with each send's [`Traced::first`] replaced by its mark: the block (from its
/// address, as `halves` tells it), plus [`PARAMS`] after the first N - 1 sends; -1 when
/// the block is unknown.
pub fn marked(halves: &dyn Halves, mut log: Vec<Traced>) -> Vec<Traced> {
    let n = halves.ranks();
    for (i, m) in log.iter_mut().filter(|m| m.sent).enumerate() {
        let phase = if i < n - 1 { 0 } else { PARAMS };
        m.first = halves.block_of(m.addr).map_or(-1, |b| b as i64 + phase);
    }
    log
}

/// Collective: gathers every rank's marked first step on rank 0, which prints it as a
/// `traced:` block and writes the figure `file` (under the toolkit's output folder),
/// then a `figure:` line. The other ranks return at once after the gather.
pub fn draw(world: &SimpleCommunicator, first_step: &[Traced], title: &str, file: &str) {
    let Some(logs) = trace::gather(world, first_step, |m| m.first) else {
        return;
    };
    let label = |mark: i64| match mark {
        k if k < 0 => "?".to_string(),
        k if k >= PARAMS => format!("p{}", k - PARAMS),
        k => format!("g{k}"),
    };
    trace::draw(title, "step", &logs, label, file);
}
