//! The course's checker, behind `make check`, `make verify`, `make teaching`, `make class`.
//!
//! ```text
//! workbook check NN    run chapter NN's tests on your code; a table per exercise
//! workbook check       every chapter's table, then a one-line summary per chapter
//! workbook verify      every stub fails with its own `ex N.M` message, every solution passes
//! workbook verify --stubs-only   the first half (make test has just run the solutions):
//!                      the exercises' own tests only, on the stubs
//! workbook teaching    regenerate book/src/teaching/ (schedules, chapter map) from course.toml
//! workbook class DIR   merge the progress.json files of DIR into one class table (+ HTML)
//! workbook handout DEST        the course without solutions/ and planted mistakes
//! workbook release NN DEST     add chapter NN's solutions to the handout in DEST
//! workbook chapters    the chapters' ids (course.toml, the one list), one a line
//! workbook dir NN | package NN  chapter NN's crate folder | package name
//! workbook labs NN | benches NN chapter NN's labs | MPI benchmark drivers, one a line
//! workbook ranks NN LAB         the lab's own rank count (empty: none, NP decides)
//! workbook test-times [TARGET]  the slowest launches of the last make test, per package
//! ```
//! Run it from the repository root (the Makefile does).

use course::check::{self, Status};
use course::check_table::{label, print_table};
use std::path::Path;

/// For every chapter: stubs fail with their own message, solutions pass.
fn verify(root: &Path, solutions_too: bool) -> i32 {
    let mut problems = vec![];
    let chapters = match course::registry::chapter_dirs(root) {
        Ok(dirs) => dirs,
        Err(e) => {
            eprintln!("workbook verify: {e}");
            return 2;
        }
    };
    for dir in chapters {
        let package = dir.file_name().unwrap().to_string_lossy().into_owned();
        let stubs = check::exercises_in(&dir);
        let what = if solutions_too {
            "stubs, then solutions"
        } else {
            "stubs"
        };
        println!(
            "workbook verify: {package}: {} exercises; {what}",
            stubs.len()
        );
        let places = check::exercise_places(root, &dir);
        // The exercises' own tests only: what a stub must fail.
        let ids: Vec<String> = stubs.keys().cloned().collect();
        let run = course::test_run::cargo_test_exercises(root, &package, &dir, &ids);
        let on_stubs = check::verdicts(&stubs, &places, &run, None);
        print_table(&on_stubs, None);
        for e in &on_stubs {
            if e.status != Status::NotStarted {
                problems.push(format!(
                    "{package}: the stub of ex {} does not fail with its own \
                                       `ex {}` message: {}",
                    e.id,
                    e.id,
                    label(&e.status)
                ));
            }
        }
        if !solutions_too {
            continue;
        }
        let run = course::test_run::cargo_test(root, &package, true);
        for (test, result) in &run.results {
            if let Err(why) = result {
                problems.push(format!(
                    "{package}: with the solutions, {test} fails:\n{why}"
                ));
            }
        }
        if let Some(errors) = run.build_error {
            problems.push(format!(
                "{package}: the solutions do not compile:\n{errors}"
            ));
        }
        let passing = run.results.values().filter(|r| r.is_ok()).count();
        println!(
            "workbook verify: {package}: {passing} of {} tests pass with the solutions",
            run.results.len()
        );
    }
    if problems.is_empty() {
        let solutions = if solutions_too {
            ", every solution passes"
        } else {
            ""
        };
        println!("workbook verify: every stub fails with its own message{solutions}.");
        0
    } else {
        problems.iter().for_each(|p| println!("PROBLEM: {p}"));
        1
    }
}

/// Regenerates the teaching pages from course.toml.
fn teaching(root: &Path) -> i32 {
    match course::teaching::write_pages(root) {
        Ok(paths) => {
            paths
                .iter()
                .for_each(|p| println!("teaching: wrote {}", p.display()));
            0
        }
        Err(e) => {
            eprintln!("workbook teaching: {e}");
            2
        }
    }
}

/// Merges a folder of progress files into the class table and `class.html`.
fn class(dir: &Path) -> i32 {
    let class = match course::progress::read_class(dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("workbook class: {e} (make class DIR=folder-of-progress-files)");
            return 2;
        }
    };
    for why in &class.unreadable {
        println!("workbook class: skipped {why}");
    }
    if class.learners.is_empty() {
        eprintln!(
            "workbook class: no progress files in {}; collect each learner's \
             target/workbook/progress.json there (renamed, e.g. ana.json)",
            dir.display()
        );
        return 2;
    }
    print!("{}", class.text());
    match workbook_settings::out::write_file("class.html", &class.html()) {
        Ok(path) => println!("class: {}", path.display()),
        Err(e) => println!("workbook class: could not write class.html: {e}"),
    }
    0
}

/// Writes the course without solutions into `dest`.
fn handout(root: &Path, dest: &Path) -> i32 {
    match course::handout::handout(root, dest) {
        Ok(n) => {
            println!(
                "handout: wrote {n} files to {} (no solutions/, no planted mistakes); \
                 release a chapter with make release CH=NN DEST={}",
                dest.display(),
                dest.display()
            );
            0
        }
        Err(e) => {
            eprintln!("workbook handout: {e}");
            2
        }
    }
}

/// Adds one chapter's solutions to a handout.
fn release(root: &Path, nn: &str, dest: &Path) -> i32 {
    match course::handout::release(root, nn, dest) {
        Ok(n) => {
            println!(
                "release: chapter {nn}'s solutions ({n} files) are in {}",
                dest.display()
            );
            println!("  learners: git pull (or copy) it, then make run CH={nn} SOLUTION=1");
            0
        }
        Err(e) => {
            eprintln!("workbook release: {e}");
            2
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(".");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The registry's answers (course.toml): which chapters, where, which labs and benches.
    if let Some(answer) = course::registry::answer(root, &args) {
        match answer {
            Ok(text) if text.is_empty() => {}
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("workbook {}: {e}", args.join(" "));
                std::process::exit(2);
            }
        }
        return;
    }
    let code = match args[..] {
        ["check", nn] => course::check_table::check_chapter(root, nn, true).code,
        ["check"] => course::check_table::check_all(root),
        ["teaching"] => teaching(root),
        ["class", dir] => class(Path::new(dir)),
        ["handout", dest] => handout(root, Path::new(dest)),
        ["release", nn, dest] => release(root, nn, Path::new(dest)),
        ["verify"] => verify(root, true),
        ["verify", "--stubs-only"] => verify(root, false),
        ["test-times"] => course::times::test_times(Path::new("target")),
        ["test-times", target] => course::times::test_times(Path::new(target)),
        _ => {
            eprintln!(
                "usage: workbook check [NN] | verify [--stubs-only] | test-times [TARGET] | teaching | class DIR | \
                 handout DEST | release NN DEST | chapters | dir NN | package NN | labs NN | \
                 benches NN | ranks NN LAB   (from the repository root)"
            );
            2
        }
    };
    std::process::exit(code);
}
