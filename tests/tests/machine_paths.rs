//! Captured output holds no path of the machine that captured it.
//!
//! The book shows program output captured from real runs (`book/src/**/output/`). A
//! capture that says `/work/main/target/gpu-kit/kit/bin/train` or `wrote ... in
//! /tmp/gk/workbook` shows one engineer's folders, which a reader's machine does not have.
//! Run: `cargo test -p workbook-tests --test machine_paths`.

use std::path::{Path, PathBuf};
use workbook_tests::{files_under, repo_root};

/// Folders that are a person's or a machine's own, never the reader's: home folders,
/// scratch folders and this checkout. System paths (`/usr/lib/...`, `/proc/self/maps`) are
/// the same on every machine and stay allowed.
fn machine_prefixes(root: &Path) -> Vec<String> {
    let mut prefixes: Vec<String> = [
        "/root/",
        "/home/",
        "/Users/",
        "/tmp/",
        "/var/tmp/",
        "/work/",
    ]
    .map(String::from)
    .to_vec();
    for own in [
        Some(root.to_path_buf()),
        std::env::var_os("HOME").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    {
        let own = format!("{}/", own.display());
        if own.len() > 2 && !prefixes.contains(&own) {
            prefixes.push(own);
        }
    }
    prefixes
}

/// `(line number, the path)` for each machine path in `text`.
fn machine_paths(text: &str, prefixes: &[String]) -> Vec<(usize, String)> {
    let mut found = vec![];
    for (n, line) in text.lines().enumerate() {
        // Where each path starts: one report per path, however many prefixes match it.
        let mut starts: Vec<usize> = prefixes
            .iter()
            .flat_map(|p| line.match_indices(p.as_str()).map(|(at, _)| at))
            .collect();
        starts.sort();
        starts.dedup();
        for at in starts {
            // `/tmp/` inside a longer word (`x/tmp/`) is a relative path, not a root.
            let before = line[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_') {
                continue;
            }
            let path: String = line[at..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !"\"'`),;".contains(*c))
                .collect();
            found.push((n + 1, path));
        }
    }
    found
}

#[test]
fn no_captured_output_shows_a_path_of_the_capturing_machine() {
    let root = repo_root();
    let prefixes = machine_prefixes(&root);
    let captured = files_under(&root.join("book/src"), &|p| {
        p.components().any(|c| c.as_os_str() == "output")
    });
    assert!(
        captured.len() > 20,
        "only {} captured files found",
        captured.len()
    );
    let mut bad = vec![];
    for file in &captured {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (line, path) in machine_paths(&text, &prefixes) {
            let rel = file.strip_prefix(&root).unwrap_or(file);
            bad.push(format!("  {}:{line}: {path}", rel.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "captured output shows paths of the machine that captured it; print paths \
         relative to the repository (or the kit's folder) and capture again:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_finds_home_scratch_and_checkout_paths_but_not_system_ones() {
    let prefixes = machine_prefixes(Path::new("/srv/course"));
    let text = "$ /work/main/target/gpu-kit/kit/bin/train --epochs 5\n\
                wrote train.csv in /tmp/gk/workbook/ch06\n\
                libclang: /usr/lib/llvm-14/lib/libclang.so; maps: /proc/self/maps\n\
                log in /srv/course/target/x.txt and target/tmp/x";
    let found = machine_paths(text, &prefixes);
    let paths: Vec<&str> = found.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/work/main/target/gpu-kit/kit/bin/train",
            "/tmp/gk/workbook/ch06",
            "/srv/course/target/x.txt"
        ]
    );
    assert_eq!(found[1].0, 2);
}
