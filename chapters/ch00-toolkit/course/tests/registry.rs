//! course.toml is the one list of chapters: every chapter crate is in it, every crate it
//! names exists with the labs and benches it lists, and every place that must know a
//! chapter (the book's SUMMARY.md, the workspace members, solutions/ for the handout)
//! does. A failure names the place. Then the same check on a small made-up repository,
//! broken one place at a time, to show that each place is named.
//!
//! Run: `cargo test -q -p course --test registry`.

use course::registry_check::problems;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

#[test]
fn every_chapter_is_registered_everywhere() {
    let found = problems(&repo_root());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

const PLAN: &str = r#"
[workshop]
start = "09:00"
session = 90
sessions_per_day = 4
break = 15
lunch_after = 2
lunch = 60

[[chapter]]
id = "01"
title = "One"
reading = { "index.md" = 10 }
labs = 5
depends = []
exercises = []
[chapter.crate]
dir = "chapters/ch01-one"
labs = ["ring"]
benches = ["sweep"]
gpu_bins = ["ring"]
gpu_tests = ["ring_props"]
mpich_tests = ["ring_props", "planted_mistakes"]
"#;

/// A made-up repository with one chapter registered everywhere; `break_it` then undoes one
/// place.
fn repo(name: &str, break_it: &dyn Fn(&Path)) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("registry-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("course.toml", PLAN);
    write("Cargo.toml", "[workspace]\nmembers = [\"chapters/*\"]\n");
    write(
        "chapters/ch01-one/Cargo.toml",
        "[package]\nname = \"ch01-one\"\n\n[[test]]\nname = \"planted_mistakes\"\n",
    );
    write("chapters/ch01-one/src/bin/ring.rs", "fn main() {}\n");
    write("chapters/ch01-one/src/bin/sweep/main.rs", "fn main() {}\n");
    write("chapters/ch01-one/tests/ring_props.rs", "\n");
    write("solutions/ch01-one/lib.rs", "\n");
    write("book/src/SUMMARY.md", "- [One](ch01-one/index.md)\n");
    break_it(&root);
    root
}

fn problems_when(name: &str, break_it: &dyn Fn(&Path)) -> String {
    problems(&repo(name, break_it)).join("\n")
}

#[test]
fn each_place_a_chapter_is_missing_from_is_named() {
    assert_eq!(problems_when("whole", &|_| {}), "");
    let unlisted = problems_when("unlisted", &|r| {
        std::fs::create_dir_all(r.join("chapters/ch02-two")).unwrap();
        std::fs::write(r.join("chapters/ch02-two/Cargo.toml"), "").unwrap();
    });
    assert!(
        unlisted.contains("chapters/ch02-two: a chapter crate that course.toml does not name"),
        "{unlisted}"
    );
    let gone = problems_when("gone", &|r| {
        std::fs::remove_file(r.join("chapters/ch01-one/Cargo.toml")).unwrap();
    });
    assert!(
        gone.contains("\"chapters/ch01-one\" holds no Cargo.toml"),
        "{gone}"
    );
    let no_lab = problems_when("no-lab", &|r| {
        std::fs::remove_file(r.join("chapters/ch01-one/src/bin/ring.rs")).unwrap();
    });
    assert!(
        no_lab.contains("lab \"ring\" is no binary of ch01-one"),
        "{no_lab}"
    );
    let no_page = problems_when("no-page", &|r| {
        std::fs::write(r.join("book/src/SUMMARY.md"), "").unwrap();
    });
    assert!(
        no_page.contains("book/src/SUMMARY.md: no page of chapter 01"),
        "{no_page}"
    );
    let no_member = problems_when("no-member", &|r| {
        std::fs::write(r.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    });
    assert!(
        no_member.contains("Cargo.toml: workspace members lack"),
        "{no_member}"
    );
    let no_solutions = problems_when("no-solutions", &|r| {
        std::fs::remove_dir_all(r.join("solutions/ch01-one")).unwrap();
    });
    assert!(
        no_solutions.contains("solutions/ch01-one: missing"),
        "{no_solutions}"
    );
    let no_gpu_test = problems_when("no-gpu-test", &|r| {
        std::fs::remove_file(r.join("chapters/ch01-one/tests/ring_props.rs")).unwrap();
    });
    assert!(
        no_gpu_test
            .contains("gpu_tests names \"ring_props\", but ch01-one has no tests/ring_props.rs"),
        "{no_gpu_test}"
    );
    let no_mpich_test = problems_when("no-mpich-test", &|r| {
        std::fs::write(
            r.join("chapters/ch01-one/Cargo.toml"),
            "[package]\nname = \"ch01-one\"\n",
        )
        .unwrap();
    });
    assert!(
        no_mpich_test.contains(
            "mpich_tests names \"planted_mistakes\", but ch01-one has no \
             tests/planted_mistakes.rs or [[test]] so named"
        ),
        "{no_mpich_test}"
    );
}
