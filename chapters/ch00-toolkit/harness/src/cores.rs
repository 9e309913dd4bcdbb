//! The MPI jobs one test binary launches share this machine's cores.
//!
//! libtest runs a binary's tests on several threads, and each MPI test launches a job of
//! its own. Two 4-rank jobs on a 2-core laptop put 8 ranks on 2 cores: under MPICH, whose
//! waiting ranks spin, a case that takes a second alone then passes its deadline. So a job
//! starts only when its ranks fit in the cores the jobs already running leave free; a job
//! with more ranks than cores takes them all and runs alone (oversubscribed, as it must).
//! Ranks on other nodes (a cluster's `srun`) are counted as if here: the jobs then overlap
//! less than they could, never more.

use std::sync::{Condvar, Mutex};

/// Cores held by the jobs of this process that run now.
static IN_USE: Mutex<usize> = Mutex::new(0);
/// Told whenever a job gives its cores back.
static FREED: Condvar = Condvar::new();

/// The cores one job holds while it runs; given back when dropped.
pub struct Share {
    taken: usize,
}

/// The cores of this machine (1 when it cannot tell).
pub fn machine_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Waits until `ranks` ranks fit in the free cores (all of them for a job larger than
/// the machine), then holds them until the returned share is dropped.
pub fn take(ranks: u32) -> Share {
    let cores = machine_cores();
    let want = (ranks as usize).clamp(1, cores);
    let mut used = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    while *used + want > cores {
        used = FREED.wait(used).unwrap_or_else(|e| e.into_inner());
    }
    *used += want;
    Share { taken: want }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut used = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
        *used -= self.taken;
        FREED.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_waits_for_the_cores_the_running_ones_hold() {
        let cores = machine_cores();
        let all = take(cores as u32 + 3);
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _one = take(1);
            tx.send(()).unwrap();
        });
        let early = rx.recv_timeout(std::time::Duration::from_millis(200));
        assert!(early.is_err(), "a job started while every core was held");
        drop(all);
        rx.recv_timeout(std::time::Duration::from_secs(5))
            .expect("the waiting job never started once the cores were free");
        waiter.join().unwrap();
    }
}
