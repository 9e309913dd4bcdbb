//! `make test-times`: where the time of `make test` went.
//!
//! Reads the launch log (`target/workbook/launches.csv`, a row per `mpirun` a test
//! started: `workbook_settings::launches`) and, when `make test` ran with cargo's
//! `--timings`, cargo's report (`target/cargo-timings/cargo-timing.html`, the build time of
//! every unit). Prints the slowest launches, the launches and build seconds per package,
//! and the totals.
//!
//! Run its tests: `cargo test -p course --lib times`.

use std::collections::BTreeMap;
use std::path::Path;
use workbook_settings::launches::{read_rows, Row};

/// How many of the slowest launches the report lists.
pub const SLOWEST: usize = 20;
/// A package that launched nothing is listed alone when it took this long to build.
const MENTIONED_BUILD_S: f64 = 10.0;

/// Build seconds per package from cargo's timing report (the units' durations added up:
/// compile and link, with the time two units overlapped counted twice).
pub fn build_seconds(html: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Some(start) = html.find("const UNIT_DATA = ") else {
        return out;
    };
    let rest = &html[start + "const UNIT_DATA = ".len()..];
    let Some(end) = rest.find("];") else {
        return out;
    };
    let Ok(units) = serde_json::from_str::<serde_json::Value>(&rest[..=end]) else {
        return out;
    };
    for unit in units.as_array().into_iter().flatten() {
        let name = unit["name"].as_str().unwrap_or("?").to_string();
        let secs = unit["duration"].as_f64().unwrap_or(0.0);
        *out.entry(name).or_insert(0.0) += secs;
    }
    out
}

/// The report: the slowest launches, then per package its launches, their seconds, its
/// build seconds (when known), then the totals.
pub fn report(rows: &[Row], build: &BTreeMap<String, f64>) -> String {
    let mut text = String::new();
    let mut slow: Vec<&Row> = rows.iter().collect();
    slow.sort_by(|a, b| b.wall_s.total_cmp(&a.wall_s));
    text.push_str(&format!("The {SLOWEST} slowest launches:\n"));
    text.push_str(&format!(
        "  {:>7}  {:<24} {:<56} {:>5}  {:<18} {}\n",
        "wall s", "package", "test", "ranks", "sizes", "outcome"
    ));
    for r in slow.iter().take(SLOWEST) {
        text.push_str(&format!(
            "  {:>7.1}  {:<24} {:<56} {:>5}  {:<18} {}\n",
            r.wall_s, r.package, r.test, r.ranks, r.sizes, r.outcome
        ));
    }
    let mut per: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    for r in rows {
        let e = per.entry(r.package.as_str()).or_default();
        e.0 += 1;
        e.1 += r.wall_s;
    }
    for name in build.keys() {
        per.entry(name.as_str()).or_default();
    }
    text.push_str("\nPer package:\n");
    text.push_str(&format!(
        "  {:<28} {:>8} {:>10} {:>9}\n",
        "package", "launches", "launch s", "build s"
    ));
    // The packages that launched, and the units that took a while to build; the rest
    // (most dependencies) in one line.
    let (mut others, mut others_s) = (0, 0.0);
    for (name, (n, secs)) in &per {
        let built = build.get(*name).copied();
        if *n == 0 && built.unwrap_or(0.0) < MENTIONED_BUILD_S {
            others += 1;
            others_s += built.unwrap_or(0.0);
            continue;
        }
        let built = built.map_or("-".to_string(), |b| format!("{b:.0}"));
        text.push_str(&format!("  {name:<28} {n:>8} {secs:>10.1} {built:>9}\n"));
    }
    if others > 0 {
        text.push_str(&format!(
            "  ({others} other packages built in {others_s:.0} s, none launched)\n"
        ));
    }
    let launches: f64 = rows.iter().map(|r| r.wall_s).sum();
    let cases: usize = rows
        .iter()
        .map(|r| r.sizes.split_whitespace().count())
        .sum();
    let built: f64 = build.values().sum();
    text.push_str(&format!(
        "\nIn all: {} launches ({cases} rank counts asked for: one launch each before they \
         shared one), {launches:.0} s in launches; {built:.0} s of build units\n",
        rows.len()
    ));
    text
}

/// `workbook test-times [TARGET_DIR]`: prints the report; 2 when there is no launch log.
pub fn test_times(target: &Path) -> i32 {
    let log = target.join("workbook").join("launches.csv");
    let Ok(text) = std::fs::read_to_string(&log) else {
        eprintln!(
            "workbook test-times: no launch log at {} (run make test first)",
            log.display()
        );
        return 2;
    };
    let timings = target.join("cargo-timings").join("cargo-timing.html");
    let build = std::fs::read_to_string(timings)
        .map(|h| build_seconds(&h))
        .unwrap_or_default();
    print!("{}", report(&read_rows(&text), &build));
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(package: &str, test: &str, wall_s: f64, sizes: &str) -> Row {
        Row {
            package: package.into(),
            caller: "main".into(),
            test: test.into(),
            program: "main".into(),
            ranks: 4,
            sizes: sizes.into(),
            wall_s,
            outcome: "ok".into(),
        }
    }

    #[test]
    fn the_report_lists_the_slowest_first_and_adds_up_each_package() {
        let rows = [
            row("ch03", "ring::a", 1.0, "1 2 3 4"),
            row("ch03", "ring::b", 5.0, "4"),
            row("ch08", "step::c", 3.0, "1 2"),
        ];
        let html = r#"x const UNIT_DATA = [{"name":"ch03","duration":12.5},
            {"name":"ch03","duration":2.5},{"name":"mpi","duration":4.0}];
            const CONCURRENCY_DATA"#;
        let build = build_seconds(html);
        assert_eq!(build["ch03"], 15.0);
        let text = report(&rows, &build);
        let b = text.find("ring::b").unwrap();
        assert!(b < text.find("step::c").unwrap() && b < text.find("ring::a").unwrap());
        assert!(
            text.contains("ch03                                2        6.0        15"),
            "{text}"
        );
        assert!(
            text.contains("(1 other packages built in 4 s, none launched)"),
            "{text}"
        );
        assert!(
            text.contains("3 launches (7 rank counts asked for"),
            "{text}"
        );
    }
}
