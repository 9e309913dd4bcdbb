//! Reporting: timings reduced over ranks, tables, and files under `target/workbook/`.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;
use tabled::Tabled;

/// A time measured on every rank, reduced over the ranks. A parallel step takes as long
/// as its slowest rank, so `max` is the figure to report; `min` shows the imbalance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The fastest rank's seconds.
    pub min: f64,
    /// The slowest rank's seconds: the time of the parallel step.
    pub max: f64,
    /// The mean over ranks.
    pub mean: f64,
}

impl Timing {
    /// Reduce this rank's `seconds` over all ranks of `world` (every rank gets the result).
    pub fn over_ranks(world: &SimpleCommunicator, seconds: f64) -> Timing {
        let (mut min, mut max, mut sum) = (0.0, 0.0, 0.0);
        world.all_reduce_into(&seconds, &mut min, SystemOperation::min());
        world.all_reduce_into(&seconds, &mut max, SystemOperation::max());
        world.all_reduce_into(&seconds, &mut sum, SystemOperation::sum());
        Timing {
            min,
            max,
            mean: sum / f64::from(world.size()),
        }
    }
}

/// A table in the course's style, ready to print.
pub fn table<T: Tabled>(rows: impl IntoIterator<Item = T>) -> String {
    let mut t = tabled::Table::new(rows);
    t.with(tabled::settings::Style::sharp());
    t.to_string()
}

/// The same rows as [`table`] shows, as CSV: the table's headers, then one line per row,
/// fields quoted where they hold a comma, a quote or a line break.
pub fn csv<T: Tabled>(rows: impl IntoIterator<Item = T>) -> String {
    let line = |fields: Vec<std::borrow::Cow<'_, str>>| {
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        quoted.join(",") + "\n"
    };
    let mut text = line(T::headers());
    for row in rows {
        text += &line(row.fields());
    }
    text
}

fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Prints `rows` as a [`table`] and writes the same rows as [`csv`] to
/// `out_dir()/csv_name`; returns the CSV's path.
pub fn print_and_save<T: Tabled>(rows: &[T], csv_name: &str) -> std::io::Result<PathBuf> {
    println!("{}", table(rows));
    write_file(csv_name, &csv(rows))
}

/// The course's output folder (`target/workbook/`, or `WORKBOOK_OUT`), where a lab keeps
/// what it writes beyond single files (a checkpoint's folder).
pub fn out_dir() -> PathBuf {
    workbook_settings::out::out_dir()
}

/// Writes `contents` to `name` under the course's output folder (`target/workbook/`, or
/// `WORKBOOK_OUT`: [`workbook_settings::out::out_dir`], which the course tooling writes to
/// too), atomically, and returns its path: the one way a lab saves a file.
pub fn write_file(name: &str, contents: &str) -> std::io::Result<PathBuf> {
    workbook_settings::out::write_file(name, contents)
}

/// The cores of this host, whatever this process is bound to (`sysconf`, not the
/// affinity mask that mpirun's binding narrows to one core).
pub fn host_cores() -> usize {
    // SAFETY: sysconf reads a system constant; no memory is passed.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(online).unwrap_or(1).max(1)
}

/// `1 rank`, `4 ranks`: a rank count as the labs' first lines say it.
pub fn rank_count(ranks: usize) -> String {
    counted(ranks, "rank")
}

/// `1 thread`, `4 threads`: a count and its noun, plural unless the count is 1.
pub fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The caveat that goes next to every timing a lab prints: with more ranks than cores,
/// the ranks take turns on the cores and a rank's wait includes the others' work.
pub fn oversubscription_note(ranks: usize) -> String {
    oversubscription_note_for(ranks, host_cores())
}

fn oversubscription_note_for(ranks: usize, cores: usize) -> String {
    if ranks > cores {
        format!("note: {ranks} ranks share {cores} core(s) (oversubscribed): times include waiting for a core")
    } else {
        format!(
            "note: {ranks} rank(s) on {cores} core(s), one core each; times vary from run to run"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Tabled)]
    struct Row {
        name: &'static str,
        #[tabled(rename = "time µs")]
        time: f64,
    }

    #[test]
    fn the_csv_holds_the_rows_of_the_table() {
        let rows = [
            Row {
                name: "ring",
                time: 1.5,
            },
            Row {
                name: "a, \"b\"",
                time: 2.0,
            },
        ];
        assert_eq!(csv(&rows), "name,time µs\nring,1.5\n\"a, \"\"b\"\"\",2\n");
        assert!(table(&rows).contains("│ ring"));
    }

    #[test]
    fn the_note_says_when_ranks_outnumber_cores() {
        assert!(
            oversubscription_note_for(4, 2).contains("4 ranks share 2 core(s) (oversubscribed)")
        );
        assert!(oversubscription_note_for(2, 2).contains("one core each"));
        assert!(host_cores() >= 1);
    }

    #[test]
    fn one_rank_is_singular() {
        assert_eq!(
            (rank_count(1), rank_count(4)),
            ("1 rank".into(), "4 ranks".into())
        );
    }
}
