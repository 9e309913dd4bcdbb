//! What `make check` prints: one chapter's table and its "Next:" lines (`make check
//! CH=NN`), or every chapter's table one after another and a one-line summary per chapter
//! (`make check`). Each run records what it found in `target/workbook/progress.json`
//! ([`crate::progress`]).

use crate::check::{self, Exercise, Status};
use crate::check_plan::{self, Other};
use crate::course::{Chapter, Course};
use crate::progress::Progress;
use std::collections::BTreeMap;
use std::path::Path;
use tabled::Tabled;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "exercise")]
    id: String,
    #[tabled(rename = "status")]
    status: String,
    #[tabled(rename = "task")]
    task: String,
}

/// The table's word for a status.
pub fn label(s: &Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::NotStarted => "not started",
        Status::Failing(_) => "FAILING",
        Status::NoTest => "NO TEST (chapter defect)",
    }
}

/// The progress file's word for a status.
fn progress_word(s: &Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::NotStarted => "not started",
        Status::Failing(_) | Status::NoTest => "failing",
    }
}

/// Prints the exercises as a table; the plan's optional exercises say so.
pub fn print_table<'a>(list: impl IntoIterator<Item = &'a Exercise>, chapter: Option<&Chapter>) {
    let rows = list.into_iter().map(|e| Row {
        id: match check_plan::is_optional(chapter, &e.id) {
            true => format!("ex {} (optional)", e.id),
            false => format!("ex {}", e.id),
        },
        status: label(&e.status).to_string(),
        task: e.task.clone(),
    });
    let mut table = tabled::Table::new(rows);
    table.with(tabled::settings::Style::sharp());
    println!("{table}");
}

/// One chapter's verdict: the exit code and the line `make check` sums it up with.
pub struct Verdict {
    /// 0: every exercise passed; 1: some did not; 2: the chapter does not compile.
    pub code: i32,
    pub summary: String,
}

/// Runs chapter `nn`'s tests on the learner's code, prints its table, records it in the
/// progress file; `next` prints where to go on.
pub fn check_chapter(root: &Path, nn: &str, next: bool) -> Verdict {
    let dir = match crate::registry::chapter_dir(root, nn) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("workbook check: {e}");
            let summary = format!("chapter {nn}: {e}");
            return Verdict { code: 2, summary };
        }
    };
    let package = dir.file_name().unwrap().to_string_lossy().into_owned();
    println!(
        "workbook check: running the tests of {package} on your code (this may take a minute);\n  {}",
        crate::waiting::deadlines()
    );
    let course = Course::load(root).ok();
    let chapter = course.as_ref().and_then(|c| c.chapter(&chapter_id(nn)));
    let (run, list) = run_in_two_rounds(root, &package, &dir, chapter);
    if let Some(errors) = run.build_error {
        println!(
            "{errors}\n\nworkbook check: {package} does not compile; fix the errors above first."
        );
        let summary = format!("{package}: does not compile");
        return Verdict { code: 2, summary };
    }
    let places = check::exercise_places(root, &dir);
    let ordered = check_plan::in_course_order(&list, chapter);
    print_table(ordered.iter().copied(), chapter);
    for e in &ordered {
        crate::check_report::print_failure(e);
    }
    let statuses: BTreeMap<String, String> = list
        .iter()
        .map(|e| (e.id.clone(), progress_word(&e.status).to_string()))
        .collect();
    if let Err(e) = Progress::record(&chapter_id(nn), statuses) {
        println!("workbook check: could not write the progress file: {e}");
    }
    let failing = run.results.iter();
    let failing = failing.filter(|(t, r)| check::exercise_of(t).is_none() && r.is_err());
    let failing: Vec<String> = failing.map(|(t, _)| t.clone()).collect();
    let modules = crate::test_run::test_files(&dir.join("tests"));
    let others = check_plan::others(&failing, chapter, &list, &modules);
    let really_failing = print_others(&package, &others, &run.results);
    let count = |s: Status| list.iter().filter(|e| e.status == s).count();
    let (passed, todo) = (count(Status::Passed), count(Status::NotStarted));
    let tally = format!(
        "{passed} of {} exercises passed, {todo} not started",
        list.len()
    );
    println!("\n{tally}.");
    let done = passed == list.len() && !really_failing;
    let first_open = check_plan::next(&list, chapter);
    let mut summary = format!("{package}: {tally}");
    if let Some(e) = first_open {
        summary += &format!("; next: ex {}", e.id);
    }
    if done {
        if next {
            println!("Chapter {nn} done. Next: the chapter's self-check questions in the book.");
        }
    } else if let (Some(open), true) = (first_open, next) {
        crate::check_report::print_next(root, &package, open, places.get(&open.id), chapter);
    }
    let code = if done { 0 } else { 1 };
    Verdict { code, summary }
}

/// Runs the chapter's tests in two rounds and judges its exercises: first every test but
/// those that wait for exercises (course.toml's `[chapter.waits_for]`), then those whose
/// exercises all passed. A test waiting for an unfinished exercise is not run (it could
/// only fail, and a hang in it would cost one more deadline); it counts as failed, which
/// the table shows as waiting.
fn run_in_two_rounds(
    root: &Path,
    package: &str,
    dir: &Path,
    chapter: Option<&Chapter>,
) -> (crate::test_run::TestRun, Vec<Exercise>) {
    let held: Vec<(&String, &Vec<String>)> = chapter
        .map(|c| {
            c.waits_for
                .iter()
                .filter(|(_, ids)| !ids.is_empty())
                .collect()
        })
        .unwrap_or_default();
    // libtest's names: `file::name` in the chapter's one test binary (tests/main.rs).
    let held: Vec<(String, &Vec<String>)> = held
        .into_iter()
        .map(|(test, ids)| (crate::test_run::libtest_name(dir, test), ids))
        .collect();
    let mut first = vec!["--exact".to_string()];
    for (test, _) in &held {
        first.extend(["--skip".to_string(), test.to_string()]);
    }
    let mut run = crate::test_run::cargo_test_with(root, package, false, &first);
    let places = check::exercise_places(root, dir);
    let list = check::verdicts(&check::exercises_in(dir), &places, &run, chapter);
    if run.build_error.is_some() {
        return (run, list);
    }
    let passed = |id: &String| {
        list.iter()
            .any(|e| &e.id == id && e.status == Status::Passed)
    };
    let (ready, waiting): (Vec<_>, Vec<_>) =
        held.iter().partition(|(_, ids)| ids.iter().all(passed));
    if !ready.is_empty() {
        let mut second = vec!["--exact".to_string()];
        second.extend(ready.iter().map(|(t, _)| t.to_string()));
        let more = crate::test_run::cargo_test_with(root, package, false, &second);
        run.results.extend(more.results);
    }
    for (test, _) in waiting {
        run.results.insert(test.to_string(), Err(String::new()));
    }
    (run, list)
}

/// Prints the failing tests not named after one exercise: those waiting for unfinished
/// exercises, those failing on their own (with their first lines), and those `course.toml`
/// does not declare. True when any fails on its own or is undeclared.
fn print_others(
    package: &str,
    others: &BTreeMap<String, Other>,
    results: &BTreeMap<String, Result<(), String>>,
) -> bool {
    let mut bad = false;
    for (test, verdict) in others {
        match verdict {
            Other::Waiting(ids) => println!(
                "\n{test}: waiting for {} (a test of the exercises together: it passes once they do)",
                check_plan::exercise_list(ids)
            ),
            Other::Failing => {
                bad = true;
                let why = results[test].as_ref().err().map(|w| check::excerpt(w));
                let why = why.unwrap_or_default();
                println!("\n{test} is failing (a test of {package} not tied to one exercise):\n{why}");
            }
            Other::Undeclared => {
                bad = true;
                println!(
                    "\n{test} is failing, and course.toml does not say which exercises it waits for \
                     (a defect of {package}: declare it under [chapter.waits_for])"
                );
            }
        }
    }
    bad
}

/// `"3"` or `"03"` -> `"03"`.
fn chapter_id(nn: &str) -> String {
    format!("{nn:0>2}")
}

/// Every chapter, one table after another, then one summary line per chapter. Exit code:
/// the worst of the chapters'.
pub fn check_all(root: &Path) -> i32 {
    let ids: Vec<String> = match crate::registry::crates(root) {
        Ok(all) => all.into_iter().map(|(id, _)| id).collect(),
        Err(e) => {
            eprintln!("workbook check: {e}");
            return 2;
        }
    };
    let mut verdicts = vec![];
    for id in &ids {
        println!("\n=== chapter {id} ===");
        verdicts.push(check_chapter(root, id, false));
    }
    println!("\nworkbook check: every chapter");
    for v in &verdicts {
        println!("  {}", v.summary);
    }
    let path = workbook_settings::out::out_dir().join("progress.json");
    println!(
        "progress: {} (make class merges a folder of these)",
        path.display()
    );
    verdicts.iter().map(|v| v.code).max().unwrap_or(0)
}
