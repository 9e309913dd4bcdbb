//! The watchdog: a case that does not finish in time is reported as a likely deadlock.
//!
//! Each rank runs a small thread that looks at the armed case every 50 ms. Past the
//! deadline it prints, for this rank, the case and the blocking MPI call each thread of
//! the rank is in (recorded by [`crate::intercept`]), waits a moment so that the other
//! ranks (whose deadlines pass at the same time) print theirs, then ends its process.
//! The watchdog never calls MPI itself (under `MPI_THREAD_FUNNELED` only the main thread
//! may): its process ends with `_exit`, and the launcher, seeing a rank end without
//! `MPI_Finalize`, ends the others. A hang never outlives its deadline.

use crate::intercept;
use crate::job::{abort_job, say, world_rank};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// What the watchdog is guarding right now.
struct Armed {
    label: String,
    since: Instant,
    limit: Duration,
    /// This rank finished the case and waits for the others inside the harness.
    body_done: bool,
}

static ARMED: Mutex<Option<Armed>> = Mutex::new(None);
/// How to reproduce the running property (`WORKBOOK_SEED=... with N ranks`).
static REPRODUCE: Mutex<Option<String>> = Mutex::new(None);
static START: Once = Once::new();

/// The per-case deadline: `WORKBOOK_CASE_TIMEOUT` (see [`crate::settings`]).
pub fn case_limit() -> Duration {
    crate::settings::case_timeout()
}

/// Starts the watchdog thread of this rank (once; [`crate::init`] does it).
pub fn start() {
    START.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(watch);
        spawned.expect("cannot start the watchdog thread");
    });
}

/// Guard a piece of work named `label` for at most `limit`.
pub fn arm(label: impl Into<String>, limit: Duration) {
    let armed = Armed {
        label: label.into(),
        since: Instant::now(),
        limit,
        body_done: false,
    };
    *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = Some(armed);
}

/// This rank finished its part; what follows is the harness waiting for the others.
pub fn body_done() {
    if let Some(a) = ARMED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        a.body_done = true;
    }
}

/// Stop guarding.
pub fn disarm() {
    *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Says how to reproduce what runs now (a property sets it; `None` clears it).
pub fn set_reproduce(how: Option<String>) {
    *REPRODUCE.lock().unwrap_or_else(|e| e.into_inner()) = how;
}

/// The armed case's label, if any (never blocks: a panic may come while it is held).
pub fn current_case() -> Option<String> {
    let armed = ARMED.try_lock().ok()?;
    armed.as_ref().map(|a| a.label.clone())
}

/// `"\n  in `<case>`; reproduce: WORKBOOK_SEED=... with N ranks"` inside a property case,
/// else nothing. Panics and MPI errors append it to their message.
pub fn case_context() -> String {
    let Some(case) = current_case() else {
        return String::new();
    };
    let how = REPRODUCE.try_lock().ok().and_then(|r| r.clone());
    match how {
        Some(how) => format!("\n  in `{case}`; reproduce: {how}"),
        None => format!("\n  in `{case}`"),
    }
}

fn watch() {
    loop {
        std::thread::sleep(intercept::TICK);
        intercept::tick();
        let report = {
            let armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
            match armed.as_ref() {
                Some(a) if a.since.elapsed() > a.limit => Some(describe(a)),
                _ => None,
            }
        };
        if let Some(lines) = report {
            lines.iter().for_each(|l| say(l));
            // Let the other ranks, whose deadlines pass at the same moment, print theirs.
            std::thread::sleep(Duration::from_millis(1500));
            abort_job(124);
        }
    }
}

/// `rank 1: DEADLOCK? `case` not finished after 20 s; blocked in MPI_Recv(...) for 20.0 s`,
/// one line per thread in a blocking call when several are.
fn describe(a: &Armed) -> Vec<String> {
    let rank = world_rank().unwrap_or(-1);
    let secs = a.limit.as_secs_f64();
    let head = format!(
        "rank {rank}: DEADLOCK? `{}` not finished after {secs:.0} s;",
        a.label
    );
    let calls = intercept::blocked_calls();
    let show = |c: &intercept::Call| {
        let waited = c.waited.as_secs_f64();
        format!("blocked in {}({}) for {waited:.1} s", c.name, c.detail)
    };
    match (a.body_done, calls.as_slice()) {
        (true, _) => vec![format!(
            "{head} this rank finished the case and waits for the others"
        )],
        (false, [one]) => vec![format!("{head} {}", show(one))],
        (false, []) if !crate::settings::record_calls() => vec![format!(
            "{head} (WORKBOOK_RECORD=0: the blocked call is not recorded)"
        )],
        (false, []) => vec![format!(
            "{head} busy computing, not in a blocking MPI call (an endless loop?)"
        )],
        (false, many) => {
            let mut lines = vec![format!("{head} {} threads in blocking calls:", many.len())];
            for c in many {
                lines.push(format!("rank {rank} thread `{}`: {}", c.thread, show(c)));
            }
            lines
        }
    }
}
