//! The watchdog: a case that does not finish in time is reported as a likely deadlock.
//!
//! Each rank runs a small thread that looks at the armed case every 50 ms. Past the
//! deadline it prints, for this rank, the case and the blocking MPI call the rank is in
//! (recorded by [`crate::intercept`]), waits a moment so that the other ranks (whose
//! deadlines pass at the same time) print theirs, then aborts the whole job. A hang
//! never outlives its deadline.

use crate::intercept;
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
static START: Once = Once::new();

/// The per-case deadline: `WORKBOOK_CASE_TIMEOUT` seconds, default 20.
pub fn case_limit() -> Duration {
    Duration::from_secs(crate::env_u64("WORKBOOK_CASE_TIMEOUT", 20))
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

fn watch() {
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let report = {
            let armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
            match armed.as_ref() {
                Some(a) if a.since.elapsed() > a.limit => Some(describe(a)),
                _ => None,
            }
        };
        if let Some(line) = report {
            crate::spmd::say(&line);
            let rank = crate::spmd::world_rank().unwrap_or(-1);
            if rank == 0 {
                crate::spmd::say(
                    "rank 0: hint: a rank blocked in a receive (or a collective) waits for a \
                     message or a call that no other rank makes. Compare the calls above: who \
                     waits for whom? If the work is merely slow, raise the deadline (for the \
                     checks: WORKBOOK_CASE_TIMEOUT=<seconds>).",
                );
            }
            // Let the other ranks, whose deadlines pass at the same moment, print theirs.
            std::thread::sleep(Duration::from_millis(1500));
            crate::spmd::abort_job(124);
        }
    }
}

/// `rank 1: DEADLOCK? case ... not finished after 20 s; blocked in MPI_Recv(...) for 20.0 s`
fn describe(a: &Armed) -> String {
    let rank = crate::spmd::world_rank().unwrap_or(-1);
    let secs = a.limit.as_secs_f64();
    let head = format!(
        "rank {rank}: DEADLOCK? `{}` not finished after {secs:.0} s;",
        a.label
    );
    let what = match (a.body_done, intercept::current_call()) {
        (true, _) => "this rank finished the case and waits for the others".to_string(),
        (false, Some(c)) => format!(
            "blocked in {}({}) for {:.1} s",
            c.name,
            c.detail,
            c.since.elapsed().as_secs_f64()
        ),
        (false, None) => "busy computing, not in a blocking MPI call (an endless loop?)".into(),
    };
    format!("{head} {what}")
}
