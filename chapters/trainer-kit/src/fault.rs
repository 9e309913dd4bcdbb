//! Fault injection: a rank killed in the middle of training (SIGKILL, no goodbye), and the
//! test that follows it: the job must end, not hang, and every checkpoint must stay whole.

use std::time::Duration;
use toolkit::launch::Job;

/// Kills this process (SIGKILL) if the environment says so: `{prefix}_KILL_RANK=r` and
/// `{prefix}_KILL_AT_STEP=n` kill world rank r when it reaches step n (`prefix`: the
/// trainer's, e.g. `CH06`). Without them, nothing happens.
pub fn maybe_die(prefix: &str, rank: i32, step: u64) {
    let var = |k: &str| {
        let v = std::env::var(format!("{prefix}_{k}")).ok()?;
        v.parse::<u64>().ok()
    };
    if var("KILL_RANK") == Some(rank as u64) && var("KILL_AT_STEP") == Some(step) {
        // SAFETY: raise() only signals this process; SIGKILL ends it at once, on purpose
        // (the tests want a rank to die without a goodbye).
        unsafe { libc::raise(libc::SIGKILL) };
    }
}

/// For a trainer's tests: runs `exe` on `ranks` ranks with `args`, rank `kill.0` killed at
/// step `kill.1` (through `prefix`'s variables, see [`maybe_die`]), and checks that the job
/// ends without that rank, unsuccessfully, within `limit` (its deadline is 60 s). Returns
/// the job's output and its wall time.
pub fn killed_job(
    exe: &str,
    prefix: &str,
    ranks: u32,
    args: &[&str],
    kill: (usize, u64),
    limit: Duration,
) -> (String, Duration) {
    let out = Job::new(exe)
        .ranks(ranks)
        .args(args.iter().copied())
        .env(&format!("{prefix}_KILL_RANK"), kill.0.to_string())
        .env(&format!("{prefix}_KILL_AT_STEP"), kill.1.to_string())
        .timeout(Duration::from_secs(60))
        .run()
        .expect("mpirun");
    let text = out.text();
    let rank = kill.0;
    assert!(
        !out.success() && !out.timed_out,
        "the job went on without rank {rank}:\n{text}"
    );
    assert!(out.wall < limit, "took {:?} to end:\n{text}", out.wall);
    (text, out.wall)
}

/// The processes of this machine running `exe` now (their pids), read from `/proc`: after
/// a failed job, none of its ranks may be left.
pub fn running(exe: &str) -> Vec<u32> {
    let want = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.into());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let pids = entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok());
    pids.filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == want))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_variables_nobody_dies() {
        maybe_die("TRAINER_KIT_TEST_NOT_SET", 0, 0); // returns: this test goes on
        std::env::set_var("TRAINER_KIT_TEST_KILL_RANK", "1");
        std::env::set_var("TRAINER_KIT_TEST_KILL_AT_STEP", "3");
        maybe_die("TRAINER_KIT_TEST", 0, 3); // another rank
        maybe_die("TRAINER_KIT_TEST", 1, 2); // another step
    }
}
