//! `make handout` and `make release`: the copy of the course for a class holds no solution
//! and no planted mistake, and still resolves as a workspace; releasing a chapter puts its
//! solutions back. The slow half (building a chapter in the copy and running `make check
//! CH=00` there) is ignored by default: `cargo test -p workbook-tests --test handout --
//! --ignored`.

use course::handout::{handout, release};
use std::path::{Path, PathBuf};
use std::process::Command;
use workbook_tests::{files_under, repo_root};

/// A fresh folder under target/workbook for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = workbook_settings::out::out_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn all_text(dir: &Path, ext: &str) -> Vec<(PathBuf, String)> {
    let files = files_under(dir, &|p| {
        p.to_string_lossy().ends_with(ext) && !p.components().any(|c| c.as_os_str() == ".git")
    });
    let read = |p: PathBuf| {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        (p, text)
    };
    files.into_iter().map(read).collect()
}

/// This machine's target triple, as rustc names it (`x86_64-unknown-linux-gnu`).
fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let host = text.lines().find_map(|l| l.strip_prefix("host: "));
    host.expect("rustc -vV names no host").trim().to_string()
}

#[test]
fn the_handout_has_no_solutions_and_resolves_then_a_release_puts_one_chapter_back() {
    let root = repo_root();
    let dest = scratch("handout");
    let written = handout(&root, &dest).unwrap();
    assert!(written > 100, "only {written} files written");
    assert!(!dest.join("solutions").exists(), "solutions/ was copied");
    assert!(dest.join("chapters/ch00-toolkit/src/warmup.rs").is_file());
    for (path, text) in all_text(&dest.join("book/src"), ".md") {
        let leaks = text
            .lines()
            .any(|l| l.contains("{{#include") && l.contains("solutions/"));
        assert!(!leaks, "{} still includes a solution", path.display());
    }
    for (path, text) in all_text(&dest.join("chapters"), "Cargo.toml") {
        let planted = text.contains("path = \"../../solutions/");
        assert!(
            !planted,
            "{} still has a test in solutions/",
            path.display()
        );
        if path
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .ends_with("chapters")
        {
            assert!(
                text.contains("\nsolution = "),
                "{}: the feature went",
                path.display()
            );
        }
    }
    // The workspace resolves: every member's manifest and targets are readable, and every
    // dependency of this machine's platform is in the lock file and the cargo registry.
    // Only this platform's: a new machine's registry holds just the crates its build
    // downloaded, never the Windows or wasm ones (winapi, wasi...), so an unfiltered
    // `cargo metadata --offline` fails there.
    let meta = Command::new(env!("CARGO"))
        .current_dir(&dest)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--locked",
            "--filter-platform",
            &host_triple(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&meta.stderr);
    assert!(
        meta.status.success(),
        "cargo metadata in the handout: {stderr}"
    );
    let ch02 = std::fs::read_to_string(root.join("chapters/ch02-collectives/Cargo.toml")).unwrap();
    assert_ne!(
        std::fs::read_to_string(dest.join("chapters/ch02-collectives/Cargo.toml")).unwrap(),
        ch02,
        "the handout's chapter 2 manifest should lack its planted-mistakes test"
    );

    release(&root, "2", &dest).unwrap();
    assert!(dest
        .join("solutions/ch02-collectives/planted_mistakes.rs")
        .is_file());
    assert!(
        !dest.join("solutions/ch03-ring-allreduce").exists(),
        "released too much"
    );
    let now = std::fs::read_to_string(dest.join("chapters/ch02-collectives/Cargo.toml")).unwrap();
    assert_eq!(now, ch02, "release restores the chapter's manifest");
    let page = std::fs::read_to_string(dest.join("book/src/ch02-collectives/exercises.md"));
    assert!(page
        .unwrap()
        .contains("../../../solutions/ch02-collectives/"));
    assert!(
        release(&root, "42", &dest).is_err(),
        "a chapter that does not exist"
    );
    assert!(
        handout(&root, &dest).is_err(),
        "a handout over a non-empty folder"
    );
    std::fs::remove_dir_all(&dest).unwrap();
}

/// Builds chapter 0 in a handout and runs its `make check CH=00`: the table, not an error.
#[test]
#[ignore = "builds chapter 0 in a copy of the course (a minute or more)"]
fn make_check_ch00_works_in_the_handout() {
    let dest = scratch("handout-build");
    handout(&repo_root(), &dest).unwrap();
    let _ = std::os::unix::fs::symlink(repo_root().join("libtorch"), dest.join("libtorch"));
    let target = workbook_settings::out::out_dir()
        .parent()
        .unwrap()
        .to_path_buf();
    let out = Command::new("timeout")
        .current_dir(&dest)
        .args(["600", "make", "check", "CH=00"])
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "make check CH=00 in the handout: {text}"
    );
    assert!(
        text.contains("ex 0.1") && text.contains("exercises passed"),
        "{text}"
    );
    std::fs::remove_dir_all(&dest).unwrap();
}
