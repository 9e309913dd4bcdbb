//! Which rank ended first: the harness's own answer, the same under every MPI.
//!
//! When one rank dies, the launcher stops the others, and what it then prints differs:
//! Open MPI names the rank ("process rank 1 ... exited on signal 9"); MPICH's Hydra prints
//! a banner with *a* PID and an exit code, the PID of the first process in its list, not
//! necessarily the one that died. So the harness watches the ranks itself: it finds the
//! launcher's descendants on this machine that carry a rank in their environment
//! (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`, `PMIX_RANK`), opens a `pidfd` for each, and notes
//! the order in which they end. Ranks on other hosts are not seen; then it says nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long the watcher looks for the ranks' processes before it gives up (remote ranks).
const DISCOVERY: Duration = Duration::from_secs(10);

/// A running watch over one job's ranks.
pub(crate) struct Watch {
    done: Arc<AtomicBool>,
    thread: thread::JoinHandle<Option<Vec<Vec<u32>>>>,
}

/// Starts watching the ranks `0..ranks` started by the launcher process `launcher`.
pub(crate) fn watch(launcher: u32, ranks: u32) -> Watch {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let thread = thread::spawn(move || watch_loop(launcher, ranks, &flag));
    Watch { done, thread }
}

impl Watch {
    /// Stops the watch (the launcher has exited) and returns one line naming the rank that
    /// ended first, when every rank was seen start and one ended before the others.
    pub(crate) fn first_to_end(self) -> Option<String> {
        self.done.store(true, Ordering::Relaxed);
        let batches = self.thread.join().ok()??;
        match batches.first()?.as_slice() {
            [rank] if batches.len() > 1 => Some(format!(
                "[workbook] rank {rank} ended first, while the other ranks still ran"
            )),
            _ => None,
        }
    }
}

/// The ranks' exits, in batches seen together; `None` unless every rank was found alive.
fn watch_loop(launcher: u32, ranks: u32, done: &AtomicBool) -> Option<Vec<Vec<u32>>> {
    let start = Instant::now();
    let mut fds: HashMap<u32, i32> = HashMap::new(); // rank -> pidfd
    while fds.len() < ranks as usize {
        if done.load(Ordering::Relaxed) || start.elapsed() > DISCOVERY {
            fds.values().for_each(|&fd| close(fd));
            return None;
        }
        for (rank, pid) in rank_processes(launcher) {
            if rank < ranks && !fds.contains_key(&rank) {
                // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
                let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as i32, 0) } as i32;
                if fd >= 0 {
                    fds.insert(rank, fd);
                }
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    let mut batches = vec![];
    while !fds.is_empty() {
        let last_look = done.load(Ordering::Relaxed);
        let mut polls: Vec<libc::pollfd> = fds
            .values()
            .map(|&fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let timeout = if last_look { 0 } else { 100 };
        // SAFETY: `polls` is a valid array of `len()` pollfd structures.
        unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, timeout) };
        let ended: Vec<i32> = polls
            .iter()
            .filter(|p| p.revents != 0)
            .map(|p| p.fd)
            .collect();
        let mut batch: Vec<u32> = fds
            .iter()
            .filter(|(_, fd)| ended.contains(fd))
            .map(|(&r, _)| r)
            .collect();
        batch.sort_unstable();
        batch
            .iter()
            .for_each(|r| close(fds.remove(r).unwrap_or(-1)));
        if !batch.is_empty() {
            batches.push(batch);
        }
        if last_look {
            break;
        }
    }
    fds.values().for_each(|&fd| close(fd));
    Some(batches)
}

fn close(fd: i32) {
    if fd >= 0 {
        // SAFETY: closes a pidfd this module opened and no longer uses.
        unsafe { libc::close(fd) };
    }
}

/// The launcher's descendants that are ranks: (rank, pid). A process whose parent is a
/// rank too (a program a rank started) is left out.
fn rank_processes(launcher: u32) -> Vec<(u32, u32)> {
    let parents: HashMap<u32, u32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, parent_of(pid)?)))
        .collect();
    let descends = |mut pid: u32| {
        while let Some(&p) = parents.get(&pid) {
            if p == launcher {
                return true;
            }
            pid = p;
        }
        false
    };
    let ranked: HashMap<u32, u32> = parents
        .keys()
        .filter(|&&pid| descends(pid))
        .filter_map(|&pid| Some((pid, rank_of(pid)?)))
        .collect();
    ranked
        .iter()
        .filter(|(pid, _)| !parents.get(pid).is_some_and(|p| ranked.contains_key(p)))
        .map(|(&pid, &rank)| (rank, pid))
        .collect()
}

/// The parent of `pid`, from `/proc/PID/stat` (the field after the command's `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// The rank in `pid`'s environment, as Open MPI, MPICH or PMIx set it.
fn rank_of(pid: u32) -> Option<u32> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    env.split(|&b| b == 0).find_map(|var| {
        let var = std::str::from_utf8(var).ok()?;
        ["OMPI_COMM_WORLD_RANK=", "PMI_RANK=", "PMIX_RANK="]
            .iter()
            .find_map(|k| var.strip_prefix(k)?.parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn the_rank_that_ends_first_is_named() {
        let rank = |r: &str, secs: &str| {
            Command::new("sleep")
                .arg(secs)
                .env("PMI_RANK", r)
                .spawn()
                .expect("sleep")
        };
        let watch = watch(std::process::id(), 2);
        let (mut late, mut early) = (rank("0", "1.5"), rank("1", "0.5"));
        early.wait().unwrap();
        late.wait().unwrap();
        let said = watch.first_to_end();
        assert_eq!(
            said.as_deref(),
            Some("[workbook] rank 1 ended first, while the other ranks still ran")
        );
    }
}
