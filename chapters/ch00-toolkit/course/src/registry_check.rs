//! Every place that must know a chapter, checked against the registry (`course.toml`,
//! [`crate::registry`]): each message names the place and the fix. Adding a chapter is
//! done when [`problems`] is empty (CONTRIBUTING.md lists the steps).
//!
//! Run: `cargo test -q -p course --test registry`.

use crate::registry::{crates, is_binary, is_test};
use std::path::Path;

/// What is missing or wrong, one line each, naming the place; empty when every chapter
/// is registered everywhere.
pub fn problems(root: &Path) -> Vec<String> {
    let all = match crates(root) {
        Ok(all) => all,
        Err(e) => return vec![e],
    };
    let mut found = vec![];
    // A chapter crate on disk that course.toml does not name.
    let mut on_disk: Vec<String> = std::fs::read_dir(root.join("chapters"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| {
            n.len() > 5 && n.starts_with("ch") && n[2..4].bytes().all(|b| b.is_ascii_digit())
        })
        .filter(|n| root.join("chapters").join(n).join("Cargo.toml").is_file())
        .collect();
    on_disk.sort();
    for name in &on_disk {
        let dir = format!("chapters/{name}");
        if !all.iter().any(|(_, c)| c.dir == dir) {
            found.push(format!(
                "{dir}: a chapter crate that course.toml does not name (add a [[chapter]] with \
                 id = \"{}\" and [chapter.crate] dir = \"{dir}\")",
                &name[2..4]
            ));
        }
    }
    let summary = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap_or_default();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    for (id, c) in &all {
        let dir = root.join(&c.dir);
        let package = c.package();
        let at = format!("course.toml chapter {id}");
        if c.dir.is_empty() {
            found.push(format!("{at}: no [chapter.crate] dir"));
            continue;
        }
        if !c.dir.starts_with(&format!("chapters/ch{id}-")) {
            found.push(format!("{at}: dir = {:?} is not chapters/ch{id}-*", c.dir));
        }
        if !dir.join("Cargo.toml").is_file() {
            found.push(format!("{at}: dir = {:?} holds no Cargo.toml", c.dir));
            continue;
        }
        for name in c
            .gpu_tests
            .iter()
            .filter(|n| !dir.join(format!("tests/{n}.rs")).is_file())
        {
            found.push(format!(
                "{at}: gpu_tests names {name:?}, but {package} has no tests/{name}.rs"
            ));
        }
        for name in c.mpich_tests.iter().flatten().filter(|n| !is_test(&dir, n)) {
            found.push(format!(
                "{at}: mpich_tests names {name:?}, but {package} has no tests/{name}.rs or [[test]] so named"
            ));
        }
        for (kind, names) in [
            ("lab", &c.labs),
            ("bench", &c.benches),
            ("gpu_bins entry", &c.gpu_bins),
        ] {
            for name in names.iter().filter(|n| !is_binary(&dir, n)) {
                found.push(format!(
                    "{at}: {kind} {name:?} is no binary of {package} (no src/bin/{name}.rs)"
                ));
            }
        }
        for lab in c.ranks.keys().filter(|l| !c.labs.contains(l)) {
            found.push(format!(
                "{at}: ranks names {lab:?}, which is not one of its labs"
            ));
        }
        if !summary.contains(&format!("({package}/")) {
            found.push(format!(
                "book/src/SUMMARY.md: no page of chapter {id} ({package}/...)"
            ));
        }
        if !manifest.contains("\"chapters/*\"") && !manifest.contains(&format!("\"{}\"", c.dir)) {
            found.push(format!("Cargo.toml: workspace members lack {:?}", c.dir));
        }
        if !root.join("solutions").join(package).is_dir() {
            found.push(format!(
                "solutions/{package}: missing (the handout's `make release CH={id}` copies it)"
            ));
        }
    }
    found
}
