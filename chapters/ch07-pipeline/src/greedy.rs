//! Given: reference schedules, found by simulation rather than written out.
//!
//! Every stage runs one operation per tick; a forward takes its input from the tick
//! before (stage s-1), a backward its gradient (from stage s+1). Each tick a stage picks:
//! - 1F1B: the backward of its oldest micro-batch if that gradient is there, else the
//!   next forward if fewer than `p - s` micro-batches are in flight on it;
//! - GPipe: the next forward while any is left, then the backwards.
//!
//! The order each stage ran its operations in is the schedule. The chapter's own
//! generators (ex 7.3, 7.4) write them out directly; the trainer's tests use these.

use crate::plan::{Action, Schedule, ScheduleKind};

// ANCHOR: greedy
/// The schedule of `kind` for `p` stages and `m` micro-batches, by simulation.
pub fn schedule(kind: ScheduleKind, p: usize, m: usize) -> Schedule {
    let never = usize::MAX;
    // fwd_done[s][i], bwd_done[s][i]: the tick at which stage s finished that op.
    let mut fwd_done = vec![vec![never; m]; p];
    let mut bwd_done = vec![vec![never; m]; p];
    let (mut next_f, mut next_b) = (vec![0; p], vec![0; p]);
    let mut ops: Schedule = vec![vec![]; p];
    let mut tick = 0;
    while next_b.iter().any(|&b| b < m) {
        for s in 0..p {
            let (f, b) = (next_f[s], next_b[s]);
            let grad_ready = b < f && (s + 1 == p || bwd_done[s + 1][b] < tick);
            let input_ready = f < m && (s == 0 || fwd_done[s - 1][f] < tick);
            let cap = match kind {
                ScheduleKind::OneFOneB => p - s,
                ScheduleKind::GPipe => m,
            };
            let backward_first = kind == ScheduleKind::OneFOneB || f == m;
            if backward_first && grad_ready {
                bwd_done[s][b] = tick;
                next_b[s] += 1;
                ops[s].push(Action::Backward(b));
            } else if input_ready && f - b < cap {
                fwd_done[s][f] = tick;
                next_f[s] += 1;
                ops[s].push(Action::Forward(f));
            } else if grad_ready && f == m {
                bwd_done[s][b] = tick;
                next_b[s] += 1;
                ops[s].push(Action::Backward(b));
            }
        }
        tick += 1;
    }
    ops
}
// ANCHOR_END: greedy
