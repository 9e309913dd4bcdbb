//! Workspace-wide rules about the book and files, with no MPI and no LibTorch (run:
//! `cargo test -q -p workbook-tests`). The tests live in `tests/`:
//! - `book_sync.rs`: every include in the book points at a real file and anchor, and the
//!   book holds no pasted code;
//! - `book_links.rs`: every relative link and `#anchor` of the built book resolves;
//! - `figures_in_prose.rs`: every measured figure quoted in a page's prose is in an output
//!   file the page includes (no figure typed by hand);
//! - `machine_paths.rs`: captured output shows no path of the machine that captured it;
//! - `mpi_names.rs`: the rsmpi-to-MPI page names every rsmpi call the chapters use;
//! - `traced_figures.rs`: every message figure equals a redraw of the trace in its
//!   captured output;
//! - `exercise_rules.rs`: stubs fail loudly with their exercise number, solutions mirror
//!   the stubs and hold no `todo!`, and the learner meets no answer before the exercise
//!   (none in `chapters/`, in the book only after it and collapsed; see [`answers`]);
//! - `no_mpi.rs`: this crate and the course tooling build without MPI or LibTorch;
//! - `course_minutes.rs`: the pages state the plan's minutes, reading minutes follow
//!   `course::reading`'s rule, and every exercise ends with one folded solution (its
//!   helpers: [`plan_pages`]).
//!
//! The MPI + LibTorch toolchain check (one binary links both and allreduces a tensor on 2
//! ranks) is a crate of its own, `tests/toolchain` (`cargo test -p workbook-toolchain`).

pub mod answers;
pub mod plan_pages;

use std::path::{Path, PathBuf};

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Every file under `dir` (all depths) whose path passes `keep`, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = vec![];
    for path in std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
    {
        if path.is_dir() {
            out.extend(files_under(&path, keep));
        } else if keep(&path) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The book's pages: (path relative to `book/src`, text), sorted by path.
pub fn book_pages() -> Vec<(PathBuf, String)> {
    let book = repo_root().join("book/src");
    let pages = files_under(&book, &|p| p.extension().is_some_and(|x| x == "md"));
    let read = |md: PathBuf| {
        let text = std::fs::read_to_string(&md).unwrap();
        (md.strip_prefix(&book).unwrap().to_path_buf(), text)
    };
    pages.into_iter().map(read).collect()
}

/// `{{#include path:anchor}}` -> (path, Some(anchor)); `{{#include path}}` -> (path, None).
pub fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut found = vec![];
    for part in text.split("{{#").skip(1) {
        let Some((directive, _)) = part.split_once("}}") else {
            continue;
        };
        let Some(arg) = directive
            .strip_prefix("include ")
            .or(directive.strip_prefix("rustdoc_include "))
        else {
            continue;
        };
        let arg = arg.trim();
        match arg.split_once(':') {
            Some((path, anchor)) => found.push((path.to_string(), Some(anchor.to_string()))),
            None => found.push((arg.to_string(), None)),
        }
    }
    found
}
