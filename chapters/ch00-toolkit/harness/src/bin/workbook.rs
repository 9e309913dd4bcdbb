//! The course's checker, behind `make check CH=NN` and `make verify`.
//!
//! ```text
//! workbook check NN    run chapter NN's tests on your code; a table per exercise
//! workbook verify      every stub fails with its own `ex N.M` message, every solution passes
//! workbook verify --stubs-only   the first half (make test has just run the solutions)
//! ```
//! Run it from the repository root (the Makefile does).

use std::path::Path;
use tabled::Tabled;
use toolkit::check::{self, Exercise, Status};

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "exercise")]
    id: String,
    #[tabled(rename = "status")]
    status: String,
    #[tabled(rename = "task")]
    task: String,
}

fn label(s: &Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::NotStarted => "not started",
        Status::Failing(_) => "FAILING",
        Status::NoTest => "NO TEST (chapter defect)",
    }
}

fn print_table(list: &[Exercise]) {
    let rows = list.iter().map(|e| Row {
        id: format!("ex {}", e.id),
        status: label(&e.status).to_string(),
        task: e.task.clone(),
    });
    println!("{}", toolkit::report::table(rows));
}

/// Runs one chapter's tests on the learner's code; exit 0 only if every exercise passed.
fn check_chapter(root: &Path, nn: &str) -> i32 {
    let dir = match check::chapter_dir(root, nn) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("workbook check: {e}");
            return 2;
        }
    };
    let package = dir.file_name().unwrap().to_string_lossy().into_owned();
    println!(
        "workbook check: running the tests of {package} on your code (this may take a minute)..."
    );
    let run = check::cargo_test(root, &package, false);
    if let Some(errors) = run.build_error {
        println!(
            "{errors}\n\nworkbook check: {package} does not compile; fix the errors above first."
        );
        return 2;
    }
    let places = check::exercise_places(root, &dir);
    let list = check::verdicts(&check::exercises_in(&dir), &places, &run);
    print_table(&list);
    for e in &list {
        if let Status::Failing(why) = &e.status {
            println!("\nex {} is failing ({}):\n{why}", e.id, e.tests.join(", "));
        }
    }
    let failing = run
        .results
        .iter()
        .filter(|(t, r)| check::exercise_of(t).is_none() && r.is_err());
    let others: Vec<&String> = failing.map(|(t, _)| t).collect();
    if !others.is_empty() {
        println!("\nother tests of {package} failing (not tied to one exercise): {others:?}");
    }
    let passed = list.iter().filter(|e| e.status == Status::Passed).count();
    let todo = list
        .iter()
        .filter(|e| e.status == Status::NotStarted)
        .count();
    println!(
        "\n{passed} of {} exercises passed, {todo} not started.",
        list.len()
    );
    if passed == list.len() && others.is_empty() {
        println!("Chapter {nn} done. Next: the chapter's self-check questions in the book.");
        0
    } else {
        if let Some(next) = list.iter().find(|e| e.status != Status::Passed) {
            println!("Next: ex {}: {}", next.id, next.task);
            if let Some(place) = places.get(&next.id) {
                println!("  open {} (fn {})", place.file.display(), place.function);
            }
            let chapter = dir.file_name().unwrap_or_default().to_string_lossy();
            let page = format!("book/src/{chapter}/exercises.md");
            if root.join(&page).is_file() {
                println!("  hints: book/build/{chapter}/exercises.html (make book), or {page}");
            }
        }
        1
    }
}

/// For every chapter: stubs fail with their own message, solutions pass.
fn verify(root: &Path, solutions_too: bool) -> i32 {
    let mut problems = vec![];
    let mut chapters: Vec<_> = std::fs::read_dir(root.join("chapters"))
        .expect("chapters/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    chapters.sort();
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
        let on_stubs = check::verdicts(&stubs, &places, &check::cargo_test(root, &package, false));
        print_table(&on_stubs);
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
        let run = check::cargo_test(root, &package, true);
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(".");
    let code = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["check", nn] => check_chapter(root, nn),
        ["verify"] => verify(root, true),
        ["verify", "--stubs-only"] => verify(root, false),
        _ => {
            eprintln!("usage: workbook check NN | workbook verify [--stubs-only]   (from the repository root)");
            2
        }
    };
    std::process::exit(code);
}
