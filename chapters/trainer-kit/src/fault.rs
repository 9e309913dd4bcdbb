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

/// The processes of this machine whose environment holds `mark` (`KEY=VALUE`), read from
/// `/proc`: a job launched with a mark of its own has left none of its ranks when this is
/// empty (other jobs of the same program, in tests run beside it, carry other marks).
pub fn running_with(mark: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let pids = entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok());
    let has_mark = |pid: &u32| {
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        env.split(|&b| b == 0).any(|kv| kv == mark.as_bytes())
    };
    pids.filter(has_mark).collect()
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
