//! Ending a job for sure, whatever ends the run: the launcher runs in a session of its
//! own (see [`crate::launch`]), and next to it runs the job's *reaper*, a small shell
//! process that holds the read end of a pipe whose write end only the process that
//! started the job holds. The reaper waits on that pipe:
//! - `done`: the job ended by itself; the reaper exits;
//! - `stop` (the deadline passed) or end of file (the process that started the job is
//!   gone: Ctrl-C, SIGTERM, SIGKILL, a panic): it asks the launcher to stop the way it
//!   stops every rank on every node (SIGTERM for mpirun and mpiexec; for srun, two SIGINTs
//!   within a second, Slurm's "cancel this step"), gives it [`GRACE_S`] seconds, then
//!   kills every process of the session still on this machine, ranks included, and
//!   removes the launcher's session folder in the temporary directory if it is still
//!   there (Open MPI's `ompi.HOST.UID/pid.PID`, PRRTE's `prte.HOST.UID/dvm.PID`): an
//!   mpirun killed, or slow to clean up under load, leaves it behind.
//!
//! The grace is short on purpose: an Open MPI mpirun whose remote daemons are already gone
//! (a cluster torn down by the same Ctrl-C) waits for them forever and ignores SIGTERM.
//! Ranks on other nodes go with their node's daemon (orted, hydra_pmi_proxy, slurmstepd),
//! which ends them when it loses the launcher. The reaper ignores SIGINT, SIGTERM and
//! SIGHUP (the terminal's Ctrl-C reaches it too) and lives at most [`GRACE_S`] seconds past
//! the job's process.

use crate::launcher::Flavor;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Seconds between asking the launcher to stop and killing what is left of its session.
pub const GRACE_S: u32 = 3;

/// The reaper, in POSIX sh. `$1`: the session id (the launcher's pid); `$2`: `TERM` or
/// `INT2` (srun's two SIGINTs); `$3`: the grace in seconds.
const REAPER: &str = r#"
# ANCHOR: reaper
trap '' INT TERM HUP
sid=$1 ask=$2 grace=$3
read -r word || word=gone     # end of file: the process that started the job is gone
[ "$word" = done ] && exit 0
members() {                   # live processes of the session: field 6 of /proc/PID/stat
  for f in /proc/[0-9]*/stat; do
    read -r s 2>/dev/null < "$f" || continue
    set -- ${s##*\)}          # after the command name: state ppid pgrp session ...
    [ "$1" != Z ] && [ "$4" = "$sid" ] && { p=${f#/proc/}; echo "${p%/stat}"; }
  done
}
if [ "$ask" = INT2 ]; then kill -INT "$sid"; sleep 0.2; kill -INT "$sid"
else kill -TERM "$sid"; fi 2>/dev/null
i=0
while [ "$i" -lt $((grace * 10)) ] && [ -n "$(members)" ]; do sleep 0.1; i=$((i + 1)); done
for p in $(members); do kill -KILL "$p" 2>/dev/null; done
tmp=${TMPDIR:-/tmp}           # a launcher killed before its cleanup leaves its folder
rm -rf "$tmp"/ompi.*/pid."$sid" "$tmp"/prte.*/dvm."$sid" 2>/dev/null
exit 0
# ANCHOR_END: reaper
"#;

/// A job's reaper: tell it how the job ended with [`Reaper::done`] or [`Reaper::stop`];
/// dropped without either (the thread unwinding), it stops the job.
pub struct Reaper {
    process: Child,
    pipe: Option<ChildStdin>,
}

impl Reaper {
    /// Starts the reaper of the session led by `launcher` (a child started with setsid);
    /// if it cannot start, kills the launcher and says why.
    pub fn start(launcher: &mut Child, flavor: Flavor) -> Result<Reaper, String> {
        let ask = if flavor == Flavor::Slurm {
            "INT2"
        } else {
            "TERM"
        };
        let started = Command::new("/bin/sh")
            .args(["-c", REAPER, "workbook-reaper"])
            .args([launcher.id().to_string(), ask.into(), GRACE_S.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut process = started.map_err(|e| {
            let _ = launcher.kill();
            let _ = launcher.wait();
            format!("cannot start the job's reaper (/bin/sh): {e}")
        })?;
        let pipe = process.stdin.take();
        Ok(Reaper { process, pipe })
    }

    /// The job ended by itself: the reaper exits without touching anything.
    pub fn done(mut self) {
        self.tell("done");
    }

    /// Stops the job (the launcher asked, then its session killed after the grace) and
    /// returns when nothing of it is left on this machine.
    pub fn stop(mut self) {
        self.tell("stop");
    }

    fn tell(&mut self, word: &str) {
        if let Some(mut pipe) = self.pipe.take() {
            let _ = writeln!(pipe, "{word}");
        }
        let _ = self.process.wait();
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if self.pipe.is_some() {
            self.tell("stop");
        }
    }
}

/// Waits for the child; past the deadline has its reaper end the whole session. Returns
/// the status (None when killed) and whether the deadline passed.
pub fn wait_or_kill(
    child: &mut Child,
    reaper: Reaper,
    timeout: Duration,
) -> (Option<ExitStatus>, bool) {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            reaper.done();
            return (Some(status), false);
        }
        if start.elapsed() > timeout {
            reaper.stop();
            let _ = child.wait();
            return (None, true);
        }
        thread::sleep(Duration::from_millis(20));
    }
}
