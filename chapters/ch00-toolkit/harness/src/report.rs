//! Reporting: timings reduced over ranks, tables, and files under `target/workbook/`.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;

/// A time measured on every rank, reduced over the ranks. A parallel step takes as long
/// as its slowest rank, so `max` is the figure to report; `min` shows the imbalance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub min: f64,
    pub max: f64,
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
pub fn table<T: tabled::Tabled>(rows: impl IntoIterator<Item = T>) -> String {
    let mut t = tabled::Table::new(rows);
    t.with(tabled::settings::Style::sharp());
    t.to_string()
}

/// `target/workbook/` of this workspace (or `WORKBOOK_OUT`), created if missing.
pub fn out_dir() -> PathBuf {
    let dir = match std::env::var_os("WORKBOOK_OUT") {
        Some(d) => PathBuf::from(d),
        None => {
            // cargo marks the root of every target directory with CACHEDIR.TAG.
            let exe = std::env::current_exe().unwrap_or_default();
            let tagged = exe.ancestors().find(|p| p.join("CACHEDIR.TAG").is_file());
            // Else the folder above the profile's (`target/debug/deps/x` -> `target`).
            let profile = || {
                let mut up = exe.ancestors();
                up.find(|p| p.ends_with("debug") || p.ends_with("release"))
                    .and_then(|p| p.parent())
            };
            let target = tagged.or_else(profile).map(PathBuf::from);
            target
                .unwrap_or_else(|| PathBuf::from("target"))
                .join("workbook")
        }
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    dir
}

/// Writes `contents` to `out_dir()/name` atomically (a temp file, then a rename), so a
/// reader never sees half a file. Returns the path.
pub fn write_file(name: &str, contents: &str) -> std::io::Result<PathBuf> {
    let path = out_dir().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}
