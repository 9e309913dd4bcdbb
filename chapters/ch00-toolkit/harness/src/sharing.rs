//! A lab on a machine that another job keeps busy: ranks that give the cores back.
//!
//! Two things make a waiting rank a bad neighbour on a shared machine. Open MPI's waiting
//! ranks poll: a rank blocked in `MPI_Allreduce` spins on its core, and the kernel shares
//! that core between the spinning rank and the other job's work. And Linux's desktop
//! scheduler (`CONFIG_SCHED_AUTOGROUP`, `/proc/sys/kernel/sched_autogroup_enabled`)
//! shares the cores between *sessions* first: all the ranks of a job, which run in the
//! launcher's session, get one session's share together, where torchrun starts each
//! worker in a session of its own. On 2 cores with two other busy processes (each in its
//! own session), chapter 6's `train --model cnn:4` at NP=2 trains less than half as fast
//! as DDP when its ranks poll in the launcher's session, and about as fast when they
//! yield, each in a session of its own: `make anchors LOAD=1` measures it
//! (book/src/ch06-data-parallel/output/anchors-loaded.txt).
//!
//! So before a lab's or a benchmark's job starts, the launcher looks at how busy the machine is
//! ([`decide`]: the cores' busy time over [`LOOK`], from `/proc/stat`). When other work
//! leaves fewer free cores than the job has ranks, it says so in one line and tells the
//! ranks ([`SHARED`]=1): under Open MPI a waiting rank then yields its core between polls
//! (`OMPI_MCA_mpi_yield_when_idle=1`), and each rank moves to a session of its own as it
//! starts ([`own_session`]). On an idle machine nothing changes: polling is what wins the
//! latency. `WORKBOOK_SHARED=0` turns it off, `WORKBOOK_SHARED=1` on, whatever the load.
//! Tests never measure: their runs stay the same on every machine.

use std::time::Duration;

/// The variable that tells the ranks the machine is shared (`1`), or the user's choice.
pub const SHARED: &str = "WORKBOOK_SHARED";
/// Set in a rank started again in a session of its own: do not start it again.
const IN_OWN_SESSION: &str = "WORKBOOK_IN_OWN_SESSION";
/// How long the launcher watches the cores before it decides.
pub const LOOK: Duration = Duration::from_millis(50);

/// What the launcher found: `Some(line)` when the job's ranks should behave as guests on
/// a shared machine, with the line that says so; `None` on a machine with room for them.
pub fn decide(ranks: u32) -> Option<String> {
    match std::env::var(SHARED).as_deref() {
        Ok("0") => return None,
        Ok("1") => return Some(format!("[workbook] {SHARED}=1: {}", what_changes())),
        _ => {}
    }
    let cores = crate::cores::machine_cores() as f64;
    let busy = busy_cores(LOOK)?;
    shared(ranks, busy, cores).then(|| {
        format!(
            "[workbook] other work keeps {busy:.1} of this machine's {cores:.0} cores busy: {} \
             ({SHARED}=0 turns this off)",
            what_changes()
        )
    })
}

/// True when the job's ranks and the other work do not fit in the cores: at least half a
/// core busy, and the ranks more than the cores left.
fn shared(ranks: u32, busy: f64, cores: f64) -> bool {
    busy >= 0.5 && f64::from(ranks) > cores - busy + 0.25
}

fn what_changes() -> &'static str {
    "waiting ranks yield their core, and each rank runs in a session of its own \
     (the kernel's share per session)"
}

/// What a lab's or a benchmark's job of `ranks` ranks gets: on a shared machine (not
/// under Slurm, whose jobs own their cores), the line that says so, printed, and the
/// [`environment`] of guests; else nothing.
pub fn guest_environment(ranks: u32, flavor: crate::launcher::Flavor) -> Vec<(String, String)> {
    if flavor == crate::launcher::Flavor::Slurm {
        return vec![];
    }
    decide(ranks).map_or_else(Vec::new, |line| {
        eprintln!("{line}");
        environment()
    })
}

/// The variables a shared machine's job gets: [`SHARED`]=1, and Open MPI's yielding wait
/// unless the user chose otherwise.
pub fn environment() -> Vec<(String, String)> {
    let mut env = vec![(SHARED.to_string(), "1".to_string())];
    if std::env::var_os("OMPI_MCA_mpi_yield_when_idle").is_none() {
        env.push(("OMPI_MCA_mpi_yield_when_idle".into(), "1".into()));
    }
    env
}

/// Busy cores over `window`: the share of non-idle time in `/proc/stat`, times the cores.
fn busy_cores(window: Duration) -> Option<f64> {
    let before = cpu_times()?;
    std::thread::sleep(window);
    let after = cpu_times()?;
    let (busy, total) = (after.0 - before.0, after.1 - before.1);
    (total > 0).then(|| busy as f64 / total as f64 * crate::cores::machine_cores() as f64)
}

/// (busy, total) jiffies of all cores: every field of `/proc/stat`'s `cpu` line except
/// idle and iowait is busy; guest time is already inside user time.
fn cpu_times() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|f| f.parse().ok())
        .collect();
    let total: u64 = fields.iter().sum();
    let idle = fields.get(3)? + fields.get(4).unwrap_or(&0);
    Some((total - idle, total))
}

/// On a rank of a shared machine's job ([`SHARED`]=1), before MPI starts: moves this rank
/// to a session of its own. A process that leads its process group cannot start a session
/// (`setsid` fails with EPERM), and Open MPI makes every rank one; such a rank runs
/// itself again as a child that can, which dies with it (`PR_SET_PDEATHSIG`), and ends
/// the way the child ends (its exit code, or its signal). Not under a debugger.
pub(crate) fn own_session() {
    if std::env::var(SHARED).as_deref() != Ok("1") || std::env::var_os(IN_OWN_SESSION).is_some() {
        return;
    }
    // SAFETY: getsid, getpgrp, getpid and setsid act on this process only.
    unsafe {
        if libc::getsid(0) == libc::getpid() || traced() {
            return;
        }
        if libc::getpgrp() != libc::getpid() {
            libc::setsid();
            return;
        }
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let parent = std::process::id() as i32;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(std::env::args_os().skip(1))
        .env(IN_OWN_SESSION, "1");
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    // SAFETY: between fork and exec only async-signal-safe calls on the child itself.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(1); // the parent is already gone
            }
            Ok(())
        });
    }
    let Ok(status) = cmd.status() else {
        return; // cannot start the child: run here, in the launcher's session
    };
    if let Some(sig) = status.signal() {
        // SAFETY: ends this process with the child's signal, as the launcher expects.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        std::process::exit(128 + sig);
    }
    std::process::exit(status.code().unwrap_or(1));
}

/// True when a debugger is attached (`TracerPid` in `/proc/self/status`).
fn traced() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("TracerPid:"))
            .is_some_and(|p| p.trim() != "0")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_a_guest_only_when_the_other_work_leaves_too_few_cores() {
        assert!(!shared(2, 0.1, 2.0), "an idle machine");
        assert!(shared(2, 2.0, 2.0), "two busy cores of two");
        assert!(shared(2, 1.0, 2.0), "one busy core of two, two ranks");
        assert!(
            !shared(2, 1.0, 4.0),
            "one busy core of four: room for two ranks"
        );
        assert!(
            !shared(4, 0.2, 2.0),
            "oversubscribed by the job alone: nothing else runs"
        );
        assert!(cpu_times().is_some_and(|(busy, total)| busy <= total));
    }
}
