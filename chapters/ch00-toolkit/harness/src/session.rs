//! Ending a job for sure: the launcher runs in a session of its own (see
//! [`crate::launch`]). Past its deadline it is first asked to stop the way it stops every
//! rank on every node (SIGTERM for mpirun and mpiexec; for srun, two SIGINTs within a
//! second, Slurm's "cancel this step"); then every process of its session left on this
//! machine is killed, ranks included. Ranks on other nodes go with their node's daemon
//! (orted, hydra_pmi_proxy, slurmstepd), which ends them when it loses the launcher.

use crate::launcher::Flavor;
use std::process::{Child, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

/// Waits for the child; past the deadline kills its whole session. Returns the status
/// (None when killed) and whether the deadline passed.
pub fn wait_or_kill(
    child: &mut Child,
    timeout: Duration,
    launcher: Flavor,
) -> (Option<ExitStatus>, bool) {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return (Some(status), false);
        }
        if start.elapsed() > timeout {
            kill_session(child.id() as i32, launcher);
            let _ = child.wait();
            return (None, true);
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Asks the launcher to stop every rank, then SIGKILL to every process left in its
/// session.
// ANCHOR: kill_session
fn kill_session(sid: i32, launcher: Flavor) {
    if launcher == Flavor::Slurm {
        // srun: one SIGINT reports status, a second within one second cancels the step.
        unsafe { libc::kill(sid, libc::SIGINT) };
        thread::sleep(Duration::from_millis(200));
        unsafe { libc::kill(sid, libc::SIGINT) };
    } else {
        unsafe { libc::kill(sid, libc::SIGTERM) };
    }
    let grace = Instant::now();
    while grace.elapsed() < Duration::from_secs(3) && !session_members(sid).is_empty() {
        thread::sleep(Duration::from_millis(50));
    }
    for pid in session_members(sid) {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}
// ANCHOR_END: kill_session

/// Live processes whose session id is `sid` (field 6 of /proc/PID/stat).
fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let pids = dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok());
    pids.filter(|pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The command name (field 2) is in parentheses and may hold spaces: skip past it.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        let fields: Vec<&str> = after.split_whitespace().collect();
        // after ')' come: state(3) ppid(4) pgrp(5) session(6)
        fields.first() != Some(&"Z") && fields.get(3) == Some(&sid.to_string().as_str())
    })
    .collect()
}
