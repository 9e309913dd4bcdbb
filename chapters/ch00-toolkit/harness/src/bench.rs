//! Benchmark drivers: one program, measured at several rank counts side by side.
//!
//! A driver is a binary with two sides. Started alone (`make bench`), it is the driver:
//! [`at_rank_counts`] runs the same executable under mpirun once per rank count and
//! collects what rank 0 printed. Started by mpirun ([`crate::launch::under_mpirun`]), it
//! is a rank: it measures, and rank 0 prints one line per result with a prefix of its
//! own (`ROW,...`) that the driver picks out with [`tagged`].

use crate::launch::Job;
use std::time::Duration;

/// Runs this executable under mpirun at each of `ranks` in turn, each job within
/// `timeout`, and returns the lines rank 0 printed, per rank count. Says on stderr which
/// job starts (`NAME: running N rank(s)...`); panics with a job's output when it fails.
pub fn at_rank_counts(ranks: &[u32], timeout: Duration) -> Vec<(u32, Vec<String>)> {
    let exe = std::env::current_exe().expect("cannot find my own executable");
    let name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut results = vec![];
    for &np in ranks {
        eprintln!("{name}: running {np} rank(s)...");
        let job = Job::new(exe.to_string_lossy()).ranks(np).timeout(timeout);
        let out = job.run().unwrap_or_else(|e| panic!("{e}"));
        if !out.success() {
            panic!("{name}: the {np}-rank run failed:\n{}", out.text());
        }
        let lines = out.rank_lines(0).into_iter().map(String::from).collect();
        results.push((np, lines));
    }
    results
}

/// Lets the ranks of the jobs this process starts later move between cores (Open MPI's
/// `OMPI_MCA_hwloc_base_binding_policy=none`), unless the user chose a binding. Open MPI
/// binds each rank to one core when there are enough; on a machine shared with other
/// work a bound rank cannot leave a core that another program is using, and runs at
/// half speed (measured on this course's 2-core machine: a large copy at 17 GB/s bound,
/// 33 GB/s unbound). Returns the policy in force, for the benchmark's header.
pub fn unbind_ranks() -> String {
    const POLICY: &str = "OMPI_MCA_hwloc_base_binding_policy";
    if std::env::var_os(POLICY).is_none() {
        std::env::set_var(POLICY, "none");
    }
    format!("{POLICY}={}", std::env::var(POLICY).unwrap_or_default())
}

/// The machine's load average over the last minute (`/proc/loadavg`), for a benchmark's
/// header: how many processes wanted a core while it ran (this machine has
/// `std::thread::available_parallelism()` of them). `NaN` where it cannot be read.
pub fn load_average() -> f64 {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let first = text.split_whitespace().next().unwrap_or("");
    first.parse().unwrap_or(f64::NAN)
}

/// The lines that start with `prefix`, the prefix cut off.
pub fn tagged<'a>(lines: &'a [String], prefix: &'a str) -> impl Iterator<Item = &'a str> {
    lines.iter().filter_map(move |l| l.strip_prefix(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_lines_lose_their_prefix() {
        let lines = ["ROW,1,2".to_string(), "noise".into(), "ROW,3".into()];
        assert_eq!(tagged(&lines, "ROW,").collect::<Vec<_>>(), ["1,2", "3"]);
    }

    #[test]
    fn the_load_average_is_the_first_field_of_proc_loadavg() {
        let text = std::fs::read_to_string("/proc/loadavg").unwrap();
        let first: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
        let got = load_average();
        assert!(got >= 0.0 && (got - first).abs() < 5.0, "{got} vs {first}");
    }
}
