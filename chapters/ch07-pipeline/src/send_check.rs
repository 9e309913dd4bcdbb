//! Given: the checker for sends completed as the schedule goes (one staging buffer per
//! stage), on paper.
//!
//! The executor of ex 7.5 posts every send of a step non-blocking and completes them all
//! at the end, so a stage stages up to one buffer per send (`m` on the first and last
//! stage, `2m` in the middle) whatever the schedule. Megatron and picotron complete each
//! send with the next operation's receive instead (a batched send and receive): then one
//! buffer per stage is enough, reused op after op. The price is a new wait: a stage
//! cannot go on past its next receive until the message it sent was *matched*, i.e.
//! its receiver has reached the receive for it (a large message goes by rendezvous: MPI
//! moves it only then). That rule can deadlock where "sends never wait" did not; this
//! checker runs a schedule by it, event by event, and names the stages that wait on each
//! other when none can move.
//!
//! Events of stage `s`, per op `k` in order: receive `k`'s input (waits until its sender
//! computed it), then wait for the send of op `k - 1` to be matched (its receiver has
//! reached that receive), then compute `k` (which posts `k`'s send); after the last op,
//! wait for its send. Checked by tests/send_check.rs.

use crate::plan::{Action, Schedule};
use crate::schedule_check::needs;

/// One event of a stage under the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// Receive the message `needs` names for this op.
    Receive(Action),
    /// Wait until the send of this op was matched by its receiver.
    Matched(Action),
    /// Compute this op, then post its send (if it has one).
    Compute(Action),
}

/// The stage `op`'s send goes to, if it sends one (`s` of `p`).
pub fn sends_to(op: Action, s: usize, p: usize) -> Option<usize> {
    match op {
        Action::Forward(_) if s + 1 < p => Some(s + 1),
        Action::Backward(_) if s > 0 => Some(s - 1),
        _ => None,
    }
}

/// The events of stage `s`, in order.
fn events(ops: &[Action], s: usize, p: usize) -> Vec<Event> {
    let mut list = vec![];
    let mut owed: Option<Action> = None;
    for &op in ops {
        if needs(op, s, p).is_some() {
            list.push(Event::Receive(op));
        }
        list.extend(owed.take().map(Event::Matched));
        list.push(Event::Compute(op));
        owed = sends_to(op, s, p).map(|_| op);
    }
    list.extend(owed.map(Event::Matched));
    list
}

/// Runs `schedule` (checked by [`crate::schedule_check::check`] first) by the rule
/// above. `Ok(())` when every stage finishes; else one line naming, for each stage that
/// cannot move, what it waits for.
pub fn check_matched_sends(schedule: &Schedule) -> Result<(), String> {
    let p = schedule.len();
    let lists: Vec<Vec<Event>> = (0..p).map(|s| events(&schedule[s], s, p)).collect();
    let mut at = vec![0usize; p];
    // Where stage `t` receives micro-batch `mb`'s message of kind `grad`.
    let receive_at = |t: usize, grad: bool, mb: usize| {
        lists[t].iter().position(|e| {
            matches!(e, Event::Receive(op) if needs(*op, t, p).is_some_and(|(g, b, _)| g == grad && b == mb))
        })
    };
    // Whether stage `f` has computed `op`.
    let computed =
        |at: &[usize], f: usize, op: Action| lists[f][..at[f]].contains(&Event::Compute(op));
    loop {
        let mut moved = false;
        for s in 0..p {
            while let Some(&e) = lists[s].get(at[s]) {
                let go = match e {
                    Event::Compute(_) => true,
                    Event::Receive(op) => {
                        let (grad, mb, from) = needs(op, s, p).expect("a receive needs a message");
                        let sent = match grad {
                            true => Action::Backward(mb),
                            false => Action::Forward(mb),
                        };
                        computed(&at, from, sent)
                    }
                    Event::Matched(op) => {
                        let to = sends_to(op, s, p).expect("a wait follows a send");
                        let (Action::Forward(mb) | Action::Backward(mb)) = op;
                        let grad = matches!(op, Action::Backward(_));
                        receive_at(to, grad, mb).is_some_and(|r| at[to] >= r)
                    }
                };
                if !go {
                    break;
                }
                at[s] += 1;
                moved = true;
            }
        }
        if (0..p).all(|s| at[s] == lists[s].len()) {
            return Ok(());
        }
        if !moved {
            let stuck: Vec<String> = (0..p)
                .filter_map(|s| {
                    let e = lists[s].get(at[s])?;
                    Some(match e {
                        Event::Receive(op) => format!("stage {s} waits to receive for {op:?}"),
                        Event::Matched(op) => format!(
                            "stage {s} waits for stage {} to receive what its {op:?} sent",
                            sends_to(*op, s, p).unwrap_or(s)
                        ),
                        Event::Compute(op) => format!("stage {s} is stuck before {op:?}"),
                    })
                })
                .collect();
            return Err(format!(
                "deadlock with sends matched at the next receive: {}",
                stuck.join("; ")
            ));
        }
    }
}
