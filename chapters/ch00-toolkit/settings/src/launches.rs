//! The launch log: one row per `mpirun` a test (or a lab) started, for `make test-times`.
//!
//! Every job the toolkit's `launch::Job` runs appends a row to `target/workbook/launches.csv`
//! when it ends, passed or failed: the package (`CARGO_PKG_NAME`, set by cargo), the
//! program that asked (a test binary, a lab), the test (libtest runs each test on a
//! thread named after it), the program launched, the ranks, the rank counts the launch
//! ran (`toolkit::sizes`: `1 2 3 4` for four sizes in one launch), the wall seconds and
//! the outcome. A row is written with one `write` on a file opened for appending, so rows
//! of two processes never interleave; a row cut short (a killed run) has no final newline
//! or too few fields, and readers skip it ([`read_rows`]).
//!
//! Run its tests: `cargo test -p workbook-settings launches`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file's first line: the columns.
pub const HEADER: &str = "package,caller,test,program,ranks,sizes,wall_s,outcome";

/// One launch as a row reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub package: String,
    pub caller: String,
    pub test: String,
    pub program: String,
    pub ranks: u32,
    pub sizes: String,
    pub wall_s: f64,
    pub outcome: String,
}

/// `target/workbook/launches.csv` (or under `WORKBOOK_OUT`).
pub fn path() -> PathBuf {
    crate::out::out_dir().join("launches.csv")
}

/// A program's name without cargo's hash (`ring-3f2a...` -> `ring`).
pub fn stem(program: &str) -> String {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rsplit_once('-') {
        Some((head, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            head.to_string()
        }
        _ => name,
    }
}

/// Appends the row of a launch that ended. Never fails the launch: a log that cannot be
/// written is said once on stderr.
pub fn append(program: &str, ranks: u32, sizes: &str, wall: Duration, outcome: &str) {
    let caller = std::env::current_exe()
        .map(|p| stem(&p.to_string_lossy()))
        .unwrap_or_default();
    let row = Row {
        package: std::env::var("CARGO_PKG_NAME").unwrap_or_default(),
        caller,
        test: std::thread::current().name().unwrap_or("").to_string(),
        program: stem(program),
        ranks,
        sizes: sizes.to_string(),
        wall_s: wall.as_secs_f64(),
        outcome: outcome.to_string(),
    };
    if let Err(e) = write_row(&path(), &row) {
        eprintln!("[workbook] could not append to the launch log: {e}");
    }
}

fn clean(field: &str) -> String {
    field.replace([',', '\n', '\r'], " ")
}

fn write_row(file: &Path, row: &Row) -> std::io::Result<()> {
    let mut text = String::new();
    let fresh = std::fs::metadata(file).map_or(true, |m| m.len() == 0);
    if fresh {
        text.push_str(HEADER);
        text.push('\n');
    }
    text.push_str(&format!(
        "{},{},{},{},{},{},{:.3},{}\n",
        clean(&row.package),
        clean(&row.caller),
        clean(&row.test),
        clean(&row.program),
        row.ranks,
        clean(&row.sizes),
        row.wall_s,
        clean(&row.outcome)
    ));
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    // One write: appends of two processes do not interleave.
    f.write_all(text.as_bytes())
}

/// The complete rows of a log's text: the header, a row cut short (no final newline, too
/// few fields, a field that is no number) and a second header are skipped.
pub fn read_rows(text: &str) -> Vec<Row> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .filter(|l| *l != HEADER)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 8 {
                return None;
            }
            Some(Row {
                package: f[0].into(),
                caller: f[1].into(),
                test: f[2].into(),
                program: f[3].into(),
                ranks: f[4].parse().ok()?,
                sizes: f[5].into(),
                wall_s: f[6].parse().ok()?,
                outcome: f[7].into(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(test: &str) -> Row {
        Row {
            package: "ch03-ring-allreduce".into(),
            caller: "main".into(),
            test: test.into(),
            program: "main".into(),
            ranks: 8,
            sizes: "1 2 3 4 5 8".into(),
            wall_s: 3.25,
            outcome: "ok".into(),
        }
    }

    #[test]
    fn rows_read_back_and_a_row_cut_short_is_skipped() {
        let dir = std::env::temp_dir().join(format!("launch-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("launches.csv");
        let _ = std::fs::remove_file(&file);
        write_row(&file, &row("ring::ex3_1, a comma")).unwrap();
        write_row(&file, &row("ring::ex3_2")).unwrap();
        let mut text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.matches(HEADER).count(), 1, "{text}");
        // A run killed while it wrote: half a row, no newline.
        text.push_str("ch03-ring-allreduce,main,ring::ex3_3,main,8,1 2");
        let rows = read_rows(&text);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].test, "ring::ex3_1  a comma");
        assert_eq!(rows[1], row("ring::ex3_2"));
        // A row with a field that is no number is no result either.
        assert!(read_rows("a,b,c,d,x,1,2.0,ok\n").is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn cargo_hashes_are_cut_from_program_names() {
        assert_eq!(stem("target/debug/deps/main-0123456789abcdef"), "main");
        assert_eq!(stem("target/release/ring_demo"), "ring_demo");
        assert_eq!(stem("/x/my-lab"), "my-lab");
    }
}
