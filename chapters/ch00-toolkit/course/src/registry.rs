//! The registry of chapters: `course.toml` is the one list. Each `[[chapter]]` has a
//! `[chapter.crate]` table: the crate's folder, its labs (in the order `make tour` runs
//! them; `make run CH=NN` runs the first), its MPI benchmark drivers (`make bench`), and a
//! lab's own rank count (`make run` uses it when NP is not set), what the GPU kit
//! builds (`gpu_bins`, `gpu_tests`), and which of its tests `make test-mpich` runs
//! (`mpich_tests`).
//!
//! The Makefile and the scripts ask `workbook chapters | dir NN | package NN | labs NN |
//! benches NN | ranks NN LAB | gpu-kit bins|tests | mpich-tests NN | slurm NN` ([`answer`]); [`problems`] names every place a chapter was
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
    /// The most ranks one of the chapter's checks starts (a Slurm job's `--ntasks`).
    #[serde(default = "default_check_ranks")]
    pub check_ranks: u32,
    /// The cores each rank uses (its threads; a Slurm job's `--cpus-per-task`).
    #[serde(default = "one")]
    pub cores_per_rank: u32,
    /// The binaries the GPU kit builds against CUDA LibTorch and runs on a GPU machine.
    #[serde(default)]
    pub gpu_bins: Vec<String>,
    /// The tests the GPU kit runs on a GPU machine: files `tests/NAME.rs`, each a module
    /// of the crate's one test binary (`tests/main.rs`), run as `main NAME::`.
    #[serde(default)]
    pub gpu_tests: Vec<String>,
    /// The tests `make test-mpich` runs under MPICH (`tests/NAME.rs`, a module of
    /// `tests/main.rs`, or a `[[test]]` of the crate's Cargo.toml such as
    /// `planted_mistakes`); absent: every
    /// test of the crate, its unit tests included (`cargo test --tests`: no doc tests).
    #[serde(default)]
    pub mpich_tests: Option<Vec<String>>,
}

fn default_check_ranks() -> u32 {
    8
}

fn one() -> u32 {
    1
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
        ["gpu-kit", what @ ("bins" | "tests")] => crates(root).map(|all| {
            let of = |c: &Crate| {
                if *what == "bins" {
                    c.gpu_bins.clone()
                } else {
                    c.gpu_tests.clone()
                }
            };
            let each = all
                .iter()
                .flat_map(|(_, c)| of(c).into_iter().map(|n| format!("{}:{n}", c.package())));
            lines(each.collect())
        }),
        ["mpich-tests", nn] => {
            crate_of(root, nn).map(|c| c.mpich_tests.map_or_else(|| "all".to_string(), lines))
        }
        ["slurm", nn] => crate_of(root, nn).map(|c| {
            let gpu = if c.gpu_bins.is_empty() { "no" } else { "gpu" };
            format!("{} {} {gpu}", c.check_ranks, c.cores_per_rank)
        }),
        ["ranks", nn, lab] => crate_of(root, nn).map(|c| {
            let n = c.ranks.get(*lab);
            n.map(u32::to_string).unwrap_or_default()
        }),
        _ => return None,
    })
}

/// Whether `name` is a test target of the crate in `dir`: `tests/NAME.rs` or a
/// `[[test]]` named so in its Cargo.toml.
pub fn is_test(dir: &Path, name: &str) -> bool {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    dir.join("tests").join(format!("{name}.rs")).is_file() || declares(&manifest, "[[test]]", name)
}

/// Whether `manifest` has a `section` table (`[[bin]]`, `[[test]]`) whose name is `name`.
fn declares(manifest: &str, section: &str, name: &str) -> bool {
    manifest.split(section).skip(1).any(|b| {
        let name_line = b.lines().find(|l| l.trim_start().starts_with("name"));
        name_line.is_some_and(|l| l.split('"').nth(1) == Some(name))
    })
}

/// Whether `name` is a binary of the crate in `dir`: `src/bin/NAME.rs`,
/// `src/bin/NAME/main.rs` or a `[[bin]]` named so in its Cargo.toml.
pub fn is_binary(dir: &Path, name: &str) -> bool {
    let bin = dir.join("src/bin");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let declared = declares(&manifest, "[[bin]]", name);
    bin.join(format!("{name}.rs")).is_file() || bin.join(name).join("main.rs").is_file() || declared
}
