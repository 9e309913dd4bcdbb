//! The watchdog's reports (`crate::watchdog`): what a rank past its deadline says, one
//! line per thread in a blocking MPI call, and whether it is stuck or only slow.

use crate::intercept;
use crate::job::world_rank;
use crate::watchdog::Armed;
use std::time::Duration;

/// `rank 1: DEADLOCK? `test`: a call has waited 20 s ...; blocked in MPI_Recv(...) for
/// 20.0 s`, with the setting that allows the wait.
pub(crate) fn describe_blocked(b: &Armed, stuck: &[intercept::Call]) -> Vec<String> {
    let rank = world_rank().unwrap_or(-1);
    let (label, (limit, setting)) = (&b.label, &b.call_limit);
    let secs = limit.as_secs_f64();
    let head = format!(
        "rank {rank}: DEADLOCK? `{label}`: a call has waited {secs} s ({setting}) for a \
         message or a partner that has not come;"
    );
    calls_lines(&head, rank, stuck, "blocked in")
}

/// `rank 1: DEADLOCK? `case` not finished after 20 s; blocked in MPI_Recv(...) for 20.0 s`,
/// one line per thread in a blocking call when several are.
pub(crate) fn describe(a: &Armed) -> Vec<String> {
    let rank = world_rank().unwrap_or(-1);
    let secs = a.limit.as_secs_f64();
    let head = format!(
        "rank {rank}: DEADLOCK? `{}` not finished after {secs:.0} s;",
        a.label
    );
    let calls = intercept::blocked_calls();
    match (a.body_done, calls.as_slice()) {
        (true, _) => vec![format!(
            "{head} this rank finished the case and waits for the others"
        )],
        (false, []) if !workbook_settings::settings::record_calls() => vec![format!(
            "{head} (WORKBOOK_RECORD=0: the blocked call is not recorded)"
        )],
        (false, calls) if still_moving(a.limit, calls) => {
            let head = format!(
                "rank {rank}: SLOW? `{}` not finished after {secs:.0} s, yet not stuck: it \
                 still enters MPI calls;",
                a.label
            );
            match calls {
                [] => vec![format!("{head} between two calls now")],
                calls => calls_lines(&head, rank, calls, "now in"),
            }
        }
        (false, []) => vec![format!(
            "{head} busy computing, not in a blocking MPI call (an endless loop?)"
        )],
        (false, calls) => calls_lines(&head, rank, calls, "blocked in"),
    }
}

/// A case past its deadline whose rank entered a blocking call in the last tenth of it,
/// and none of whose threads has waited longer, is slow, not stuck: a message that never
/// comes keeps its receive waiting from the moment it was posted, while a case that sends
/// a message per element waits a moment at a time.
fn still_moving(limit: Duration, calls: &[intercept::Call]) -> bool {
    let recent = intercept::since_last_call().is_some_and(|ago| ago < limit / 10);
    recent && calls.iter().all(|c| c.waited < limit / 10)
}

/// `head` with the one blocked call, or `head` then one line per thread in a call; `word`
/// says how the thread is in it (`blocked in`, or `now in` for a case that still moves).
fn calls_lines(head: &str, rank: i32, calls: &[intercept::Call], word: &str) -> Vec<String> {
    let show = |c: &intercept::Call| {
        let waited = c.waited.as_secs_f64();
        format!("{word} {}({}) for {waited:.1} s", c.name, c.detail)
    };
    match calls {
        [one] => vec![format!("{head} {}", show(one))],
        many => {
            let mut lines = vec![format!("{head} {} threads in blocking calls:", many.len())];
            for c in many {
                lines.push(format!("rank {rank} thread `{}`: {}", c.thread, show(c)));
            }
            lines
        }
    }
}
