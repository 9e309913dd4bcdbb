//! The registry of chapters: `course.toml` is the one list. Each `[[chapter]]` has a
//! `[chapter.crate]` table: the crate's folder, its labs (in the order `make tour` runs
//! them; `make run CH=NN` runs the first), its MPI benchmark drivers (`make bench`), and a
//! lab's own rank count (`make run` uses it when NP is not set).
//!
//! The Makefile and the scripts ask `workbook chapters | dir NN | package NN | labs NN |
//! benches NN | ranks NN LAB` ([`answer`]); [`problems`] names every place a chapter was
//! not registered (`cargo test -p course --test registry`).
//!
//! Run its tests: `cargo test -q -p course`.

use crate::course::Course;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A chapter's crate, from its `[chapter.crate]` table in `course.toml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crate {
    /// The crate's folder from the repository root: `"chapters/ch03-ring-allreduce"`.
    pub dir: String,
    /// The labs (binaries), in the order `make tour` runs them.
    #[serde(default)]
    pub labs: Vec<String>,
    /// The MPI benchmark drivers (binaries) `make bench` runs.
    #[serde(default)]
    pub benches: Vec<String>,
    /// A lab's own rank count, for `make run` when NP is not set: `{ gpu = 2 }`.
    #[serde(default)]
    pub ranks: BTreeMap<String, u32>,
}

impl Crate {
    /// The package name: the folder's last part (`"ch03-ring-allreduce"`).
    pub fn package(&self) -> &str {
        self.dir.rsplit('/').next().unwrap_or(&self.dir)
    }
}

/// The chapters' crates, in the order of `course.toml`: (id, crate).
pub fn crates(root: &Path) -> Result<Vec<(String, Crate)>, String> {
    let course = Course::load(root)?;
    let all = course.chapters.into_iter().map(|c| (c.id, c.code));
    Ok(all.collect())
}

/// The crate of chapter `nn` (`"03"` or `"3"`).
pub fn crate_of(root: &Path, nn: &str) -> Result<Crate, String> {
    let nn = format!("{nn:0>2}");
    let found = crates(root)?.into_iter().find(|(id, _)| *id == nn);
    found
        .map(|(_, c)| c)
        .ok_or_else(|| format!("no chapter {nn} in course.toml (try 00)"))
}

/// The crate folder of chapter `nn`, under `root`.
pub fn chapter_dir(root: &Path, nn: &str) -> Result<PathBuf, String> {
    Ok(root.join(crate_of(root, nn)?.dir))
}

/// Every chapter's crate folder, under `root`, in the order of `course.toml`.
pub fn chapter_dirs(root: &Path) -> Result<Vec<PathBuf>, String> {
    Ok(crates(root)?
        .iter()
        .map(|(_, c)| root.join(&c.dir))
        .collect())
}

/// The answer to a `workbook` question about the registry, one item a line; `None` when
/// `args` asks something else.
pub fn answer(root: &Path, args: &[&str]) -> Option<Result<String, String>> {
    let lines = |items: Vec<String>| items.join("\n");
    Some(match args {
        ["chapters"] => crates(root).map(|all| lines(all.into_iter().map(|c| c.0).collect())),
        ["dir", nn] => crate_of(root, nn).map(|c| c.dir),
        ["package", nn] => crate_of(root, nn).map(|c| c.package().to_string()),
        ["labs", nn] => crate_of(root, nn).map(|c| lines(c.labs)),
        ["benches", nn] => crate_of(root, nn).map(|c| lines(c.benches)),
        ["ranks", nn, lab] => crate_of(root, nn).map(|c| {
            let n = c.ranks.get(*lab);
            n.map(u32::to_string).unwrap_or_default()
        }),
        _ => return None,
    })
}

/// Whether `name` is a binary of the crate in `dir`: `src/bin/NAME.rs`,
/// `src/bin/NAME/main.rs` or a `[[bin]]` named so in its Cargo.toml.
pub fn is_binary(dir: &Path, name: &str) -> bool {
    let bin = dir.join("src/bin");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let declared = manifest.split("[[bin]]").skip(1).any(|b| {
        let name_line = b.lines().find(|l| l.trim_start().starts_with("name"));
        name_line.is_some_and(|l| l.split('"').nth(1) == Some(name))
    });
    bin.join(format!("{name}.rs")).is_file() || bin.join(name).join("main.rs").is_file() || declared
}
