//! The watchdog: a test that hangs is reported as a likely deadlock, never waited on.
//!
//! Each rank runs a small thread that looks every 50 ms at what it guards:
//! - a property case ([`arm`]): past the case deadline (`WORKBOOK_CASE_TIMEOUT`);
//! - a whole test body ([`guard_body`], every MPI test, whatever declares it): when one
//!   thread has waited in one blocking MPI call for the case deadline (a message that never
//!   comes does not come later), or when the body has run for its whole budget (the job's
//!   deadline less a margin: an endless loop is named before the launcher kills the job);
//! - a trainer's run ([`guard_calls`], `--collective-timeout S`): one call waiting S seconds.
//!
//! Then it prints, for this rank, what it guards and the blocking MPI call each thread of
//! the rank is in (recorded by [`crate::intercept`]), its last collectives (the flight
//! recorder, [`crate::flight`], unless the case is only slow), waits a moment so that the other
//! ranks (whose deadlines pass at about the same time) print theirs, then ends its process.
//! The watchdog never calls MPI itself (under `MPI_THREAD_FUNNELED` only the main thread
//! may): its process ends with `_exit`, and the launcher, seeing a rank end without
//! `MPI_Finalize`, ends the others. A hang never outlives its deadline.

use crate::intercept;
use crate::job::{abort_job, say, world_rank};
use crate::watchdog_report::{describe, describe_blocked};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// What the watchdog is guarding right now.
pub(crate) struct Armed {
    pub(crate) label: String,
    pub(crate) since: Instant,
    pub(crate) limit: Duration,
    /// How long one blocking call may wait, and the setting that says so (a body's).
    pub(crate) call_limit: (Duration, String),
    /// This rank finished the case and waits for the others inside the harness.
    pub(crate) body_done: bool,
    /// A finished body has said that it waits for the others (said once, never fatal).
    pub(crate) told: bool,
    /// A finished body's error, said with the wait (the verdict may never come to say it).
    pub(crate) failed: Option<String>,
}

static ARMED: Mutex<Option<Armed>> = Mutex::new(None);
/// The test body this rank runs (guarded outside property cases too).
static BODY: Mutex<Option<Armed>> = Mutex::new(None);
/// How to reproduce the running property (`WORKBOOK_SEED=... with N ranks`).
static REPRODUCE: Mutex<Option<String>> = Mutex::new(None);
static START: Once = Once::new();

/// The per-case deadline: `WORKBOOK_CASE_TIMEOUT` (see [`workbook_settings::settings`]).
pub fn case_limit() -> Duration {
    workbook_settings::settings::case_timeout()
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
    let armed = Armed::new(label.into(), limit, (case_limit(), CASE_SETTING.into()));
    *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = Some(armed);
}

/// What sets a test's deadline for one blocking call.
const CASE_SETTING: &str = "WORKBOOK_CASE_TIMEOUT";
impl Armed {
    fn new(label: String, limit: Duration, call_limit: (Duration, String)) -> Armed {
        let (since, body_done, told) = (Instant::now(), false, false);
        Armed {
            label,
            since,
            limit,
            call_limit,
            body_done,
            told,
            failed: None,
        }
    }
}

/// This rank finished its part; what follows is the harness waiting for the others.
pub fn body_done() {
    if let Some(a) = ARMED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        a.body_done = true;
    }
}

/// Stop guarding the case (the body, if guarded, is guarded again).
pub fn disarm() {
    *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The budget of a whole test body: the job's deadline less a margin, so that a body
/// that never ends is named by its rank before the launcher kills the job unnamed.
pub fn body_limit() -> Duration {
    let job = workbook_settings::settings::job_timeout();
    job.saturating_sub(Duration::from_secs(10)).max(job / 2)
}

/// Guards the test body `label` on this rank until [`body_finished`]: a thread blocked in
/// one MPI call for [`case_limit`], or the body running past [`body_limit`], is reported
/// and ends the job. Inside a property case the case's own deadline applies.
pub fn guard_body(label: impl Into<String>) {
    let call_limit = (case_limit(), CASE_SETTING.into());
    let armed = Armed::new(label.into(), body_limit(), call_limit);
    *BODY.lock().unwrap_or_else(|e| e.into_inner()) = Some(armed);
}

/// Guards a run `label` of any length: a call blocked for `limit` (set by `setting`) is
/// reported and ends the job, as PyTorch's NCCL watchdog ends a job on a timeout.
pub fn guard_calls(label: impl Into<String>, limit: Duration, setting: impl Into<String>) {
    let armed = Armed::new(label.into(), Duration::MAX, (limit, setting.into()));
    *BODY.lock().unwrap_or_else(|e| e.into_inner()) = Some(armed);
}

/// This rank finished the body (`failed`: its error, if any); it now waits for the others
/// to agree on the verdict. (A finished rank never calls the hang: those still running do.)
pub fn body_finished(failed: Option<&str>) {
    if let Some(b) = BODY.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        b.body_done = true;
        b.failed = failed.map(str::to_owned);
    }
}

/// Stops guarding the body: this rank has nothing of the test left to run (it waits
/// while other rank counts run, [`crate::sizes`]).
pub fn unguard_body() {
    *BODY.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Says how to reproduce what runs now (a property sets it; `None` clears it).
pub fn set_reproduce(how: Option<String>) {
    *REPRODUCE.lock().unwrap_or_else(|e| e.into_inner()) = how;
}

/// The armed case's label, else the guarded body's, if any (never blocks: a panic may
/// come while one is held).
pub fn current_case() -> Option<String> {
    let case = ARMED.try_lock().ok()?.as_ref().map(|a| a.label.clone());
    case.or_else(|| BODY.try_lock().ok()?.as_ref().map(|a| a.label.clone()))
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
                Some(_) => None,
                None => body_report(),
            }
        };
        if let Some(lines) = report {
            lines.iter().for_each(|l| say(l));
            say_flight(&lines);
            // Let the other ranks, whose deadlines pass at the same moment, print theirs.
            std::thread::sleep(Duration::from_millis(1500));
            abort_job(124);
        }
    }
}

/// After a report of a stuck rank (not a slow one), its last collectives
/// ([`crate::flight`]): the launcher compares them across the ranks.
fn say_flight(report: &[String]) {
    if report.iter().any(|l| l.contains("SLOW?")) {
        return;
    }
    let rank = world_rank().unwrap_or(-1);
    crate::flight::report_lines(rank)
        .iter()
        .for_each(|l| say(l));
}

/// The report on the guarded body, if it is stuck: one of its threads has waited in one
/// blocking call for the case deadline, or it ran past its whole budget.
///
/// A rank that finished its body waits for the others in the harness's verdict: after the
/// case deadline it says so once (the other ranks' reports then read "rank 1 finished,
/// rank 0 waits in MPI_Bcast") but never ends the job, since the others may still work.
fn body_report() -> Option<Vec<String>> {
    let mut body = BODY.lock().unwrap_or_else(|e| e.into_inner());
    let b = body.as_mut()?;
    let limit = b.call_limit.0;
    // The calls are made into text only once one has waited past the deadline.
    let stuck: Vec<_> = match intercept::longest_wait() {
        Some(w) if w >= limit => intercept::blocked_calls(),
        _ => vec![],
    };
    let stuck: Vec<_> = stuck.into_iter().filter(|c| c.waited >= limit).collect();
    if b.body_done {
        if !stuck.is_empty() && !b.told {
            b.told = true;
            let rank = world_rank().unwrap_or(-1);
            say(&format!(
                "rank {rank}: DEADLOCK? `{}`: this rank finished the test and waits for the \
                 others",
                b.label
            ));
            if let Some(why) = &b.failed {
                say(&format!("rank {rank}: it had returned FAILED: {why}"));
            }
            say_flight(&[]);
        }
        return None;
    }
    if !stuck.is_empty() {
        return Some(describe_blocked(b, &stuck));
    }
    (b.since.elapsed() > b.limit).then(|| describe(b))
}
