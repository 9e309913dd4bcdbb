//! Benchmark drivers: one program, measured at several rank counts side by side.
//!
//! A driver is a binary with two sides. Started alone (`make bench`), it is the driver:
//! [`at_rank_counts`] runs the same executable under mpirun once per rank count and
//! collects what rank 0 printed. Started by mpirun ([`crate::launch::under_mpirun`]), it
//! is a rank: it measures, and rank 0 prints one line per result, `ROW {json}`
//! ([`print_row`]), which the driver reads back with [`rows`]: one struct per benchmark,
//! `#[derive(Serialize, Deserialize)]`, no fields picked by position.

use crate::launch::Job;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;

/// The tag of a result line: `ROW {json}`.
pub const ROW: &str = "ROW";

/// Runs this executable under mpirun at each of `ranks` in turn (each rank gets the
/// driver's own arguments), each job within `timeout`, and returns the lines rank 0 printed, per rank count. Says on stderr which
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
        let mut job = Job::new(exe.to_string_lossy())
            .args(std::env::args().skip(1))
            .ranks(np)
            .timeout(timeout);
        // On a machine another job keeps busy, the ranks are guests (crate::sharing).
        let flavor = crate::launch::flavor().unwrap_or_else(|e| panic!("{e}"));
        for (key, value) in crate::sharing::guest_environment(np, flavor) {
            job = job.env(&key, value);
        }
        let out = job.run().unwrap_or_else(|e| panic!("{e}"));
        if !out.success() {
            panic!("{name}: the {np}-rank run failed:\n{}", out.text());
        }
        let lines = out.rank_lines(0).into_iter().map(String::from).collect();
        results.push((np, lines));
    }
    results
}

/// Whether this is a smoke run (`WORKBOOK_BENCH_SMOKE=1`, `make bench-smoke`): every
/// benchmark runs each of its code paths once, at its smallest, so that CI catches one
/// that no longer runs. Its figures then mean nothing.
pub fn smoke() -> bool {
    workbook_settings::settings::bench_smoke()
}

/// `full`, or `small` in a [`smoke`] run: a benchmark's sizes and repetitions.
pub fn sized<T>(full: T, small: T) -> T {
    match smoke() {
        true => small,
        false => full,
    }
}

/// The value after `flag` on the command line (`--ranks 2,4`), else `default`.
pub fn arg(flag: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == flag);
    at.and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
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
/// [`crate::report::host_cores`] of them). `NaN` where it cannot be read.
pub fn load_average() -> f64 {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let first = text.split_whitespace().next().unwrap_or("");
    first.parse().unwrap_or(f64::NAN)
}

/// Prints `value` as one line, `TAG {json}` (for a record that is not a result row, e.g.
/// a reference measurement, under a tag of its own).
pub fn print_tagged<T: Serialize>(tag: &str, value: &T) {
    let json = serde_json::to_string(value).expect("a bench row serialises to JSON");
    println!("{tag} {json}");
}

/// Prints one result row, `ROW {json}`: what rank 0 of a benchmark prints per result.
pub fn print_row<T: Serialize>(row: &T) {
    print_tagged(ROW, row)
}

/// Every `ROW {json}` line of `lines` as a `T`, in order; other lines are skipped.
/// A bad row is an error that names the line (its number among `lines` and its text) and
/// the field at fault.
pub fn rows<T: DeserializeOwned>(lines: &[String]) -> Result<Vec<T>, String> {
    tagged_rows(lines, ROW)
}

/// Every `TAG {json}` line of `lines` as a `T`, in order, as [`rows`] does for `ROW`.
pub fn tagged_rows<T: DeserializeOwned>(lines: &[String], tag: &str) -> Result<Vec<T>, String> {
    let mut out = vec![];
    for (i, line) in lines.iter().enumerate() {
        let Some(json) = line.strip_prefix(tag).and_then(|r| r.strip_prefix(' ')) else {
            continue;
        };
        let row = serde_json::from_str(json).map_err(|e| {
            let field = match field_at(json, e.column()) {
                Some(f) if !e.to_string().contains("field `") => format!("field `{f}`: "),
                _ => String::new(),
            };
            format!("line {} ({line:?}): {field}{e}", i + 1)
        })?;
        out.push(row);
    }
    Ok(out)
}

/// The key of the JSON object member that ends before byte `column` (1-based) of a flat
/// object: the field a value error points at.
fn field_at(json: &str, column: usize) -> Option<&str> {
    let upto = json.get(..column.min(json.len()))?;
    let end = upto.rfind("\":")?;
    let start = upto[..end].rfind('"')? + 1;
    Some(&upto[start..end])
}

/// The lines that start with `prefix`, the prefix cut off.
pub fn tagged<'a>(lines: &'a [String], prefix: &'a str) -> impl Iterator<Item = &'a str> {
    lines.iter().filter_map(move |l| l.strip_prefix(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Sample {
        np: u32,
        secs: f64,
        label: String,
    }

    #[test]
    fn rows_read_back_what_print_row_writes_and_skip_other_lines() {
        let a = Sample {
            np: 2,
            secs: 1.25e-7,
            label: "a, \"b\"".into(),
        };
        let json = serde_json::to_string(&a).unwrap();
        let lines = [
            format!("ROW {json}"),
            "ROWS are not rows".into(),
            "REF {}".into(),
        ];
        assert_eq!(rows::<Sample>(&lines).unwrap(), [a]);
    }

    #[test]
    fn a_bad_row_names_its_line_and_field() {
        let lines = [
            "noise".to_string(),
            r#"ROW {"np":2,"secs":"fast","label":"x"}"#.into(),
        ];
        let e = rows::<Sample>(&lines).unwrap_err();
        assert!(
            e.starts_with("line 2 (") && e.contains("field `secs`"),
            "{e}"
        );
        let missing = [r#"ROW {"np":2,"label":"x"}"#.to_string()];
        let e = rows::<Sample>(&missing).unwrap_err();
        assert!(e.starts_with("line 1 (") && e.contains("`secs`"), "{e}");
        let cut = [r#"ROW {"np":2,"#.to_string()];
        assert!(rows::<Sample>(&cut).unwrap_err().starts_with("line 1 ("));
    }

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
