//! `make check CH=NN` and `make verify`: run a chapter's tests, report per exercise.
//!
//! Exercises are found in the chapter's stubs (a `todo!` whose message starts
//! `ex N.M:`); their tests are named `exN_M_...`. A failing test whose output holds
//! `not yet implemented: ex N.M` is an exercise not started (so is one whose tests stop
//! at another exercise's stub, which they run first); any other failure is a wrong answer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What happened to one exercise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    NotStarted,
    /// Failed, with the first lines of the failure.
    Failing(String),
    /// No test is named after it: a defect of the chapter.
    NoTest,
}

/// One exercise of a chapter and its verdict.
#[derive(Clone, Debug)]
pub struct Exercise {
    /// `"0.2"`.
    pub id: String,
    /// The stub's `todo!` text.
    pub task: String,
    /// The test functions named after it.
    pub tests: Vec<String>,
    /// Those that failed, the most specific first (see [`crate::check_focus::specificity`]):
    /// (test, the first lines of its failure).
    pub failed: Vec<(String, String)>,
    pub status: Status,
}

/// True when `failure` stopped at the `todo!` of an exercise other than `id`: a test of
/// `id` that runs an earlier exercise's code, not yet written.
fn stopped_at_another_stub(failure: &str, id: &str) -> bool {
    failure
        .split("not yet implemented: ex ")
        .skip(1)
        .any(|rest| rest.split(':').next().is_some_and(|other| other != id))
}

/// Every stub `todo!` whose message starts `ex N.M: task`, in the chapter's `src/`, by id.
pub fn exercises_in(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for file in rust_files(&dir.join("src")) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
        let code: String = code.collect::<Vec<_>>().join("\n");
        for part in code.split("todo!(\"ex ").skip(1) {
            if let Some((id, rest)) = part.split_once(": ") {
                let task = rest.split('"').next().unwrap_or("").to_string();
                // An exercise with several stubs is named by its first one.
                found.entry(id.to_string()).or_insert(task);
            }
        }
    }
    found
}

/// Where an exercise lives, for "Next:" lines and for the task text once its `todo!` is
/// gone.
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The stub's task text.
    pub task: String,
    /// The exercise file, relative to the repository root.
    pub file: PathBuf,
    /// The function that holds the stub.
    pub function: String,
}

/// Every exercise of the chapter with its task, file and function. Found in the stubs'
/// `todo!("ex N.M: ...")` and `// TODO(ex N.M): ...` lines, and, for an exercise whose
/// stub lines the learner has already replaced, in the committed version of its file.
pub fn exercise_places(root: &Path, dir: &Path) -> BTreeMap<String, Place> {
    let mut found = BTreeMap::new();
    for file in rust_files(&dir.join("src")) {
        let rel = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let now = std::fs::read_to_string(&file).unwrap_or_default();
        let committed = Command::new("git")
            .current_dir(root)
            .args(["show", &format!("HEAD:{}", rel.display())])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        // The learner's file first, then the committed stub; in each, the first place
        // that names an exercise wins.
        for text in [&now, &committed] {
            for (id, place) in places_in(text, &rel) {
                found.entry(id).or_insert(place);
            }
        }
    }
    found
}

/// The exercises a file's text names, with the function around each.
fn places_in(text: &str, file: &Path) -> Vec<(String, Place)> {
    // `todo!` lines name a task better than the `// TODO` comment above them: first.
    let (mut todos, mut comments) = (vec![], vec![]);
    let mut function = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("pub fn ").or_else(|| t.strip_prefix("fn ")) {
            function = rest.split(['(', '<']).next().unwrap_or("").to_string();
        }
        let from_todo = t
            .split("todo!(\"ex ")
            .nth(1)
            .filter(|_| !t.starts_with("//"));
        let from_comment = t
            .strip_prefix("// TODO(ex ")
            .map(|r| r.replacen("): ", ": ", 1));
        let (named, list) = match (from_todo, from_comment) {
            (Some(t), _) => (t.to_string(), &mut todos),
            (None, Some(c)) => (c, &mut comments),
            (None, None) => continue,
        };
        if let Some((id, task)) = named.split_once(": ") {
            let task = task.split('"').next().unwrap_or("").trim().to_string();
            let place = Place {
                task,
                file: file.to_path_buf(),
                function: function.clone(),
            };
            list.push((id.to_string(), place));
        }
    }
    todos.extend(comments);
    todos
}

/// All `.rs` files under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The exercise id a test belongs to: `ex0_2_gather` -> `0.2`.
pub fn exercise_of(test: &str) -> Option<String> {
    let name = test.rsplit("::").next()?;
    let mut parts = name.strip_prefix("ex")?.splitn(3, '_');
    let (major, minor) = (parts.next()?, parts.next()?);
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    (numeric(major) && numeric(minor)).then(|| format!("{major}.{minor}"))
}

/// Combines the stubs' exercises with a test run into one verdict per exercise; the task
/// of an exercise whose stub is gone comes from `places` (see [`exercise_places`]).
pub fn verdicts(
    stubs: &BTreeMap<String, String>,
    places: &BTreeMap<String, Place>,
    run: &crate::test_run::TestRun,
    chapter: Option<&crate::course::Chapter>,
) -> Vec<Exercise> {
    // A solved exercise has no todo! left: its tests still name it.
    let mut ids: Vec<String> = stubs.keys().cloned().collect();
    ids.extend(run.results.keys().filter_map(|t| exercise_of(t)));
    ids.sort_by_key(|id| {
        let (major, minor) = id.split_once('.').unwrap_or((id, "0"));
        (
            major.parse::<u32>().unwrap_or(0),
            minor.parse::<u32>().unwrap_or(0),
        )
    });
    ids.dedup();
    let mut list = vec![];
    for id in &ids {
        let mine = run
            .results
            .keys()
            .filter(|t| exercise_of(t).as_deref() == Some(id.as_str()));
        let tests: Vec<String> = mine.cloned().collect();
        let mut failed: Vec<&String> = tests.iter().filter(|t| run.results[*t].is_err()).collect();
        // Not run because a sibling hung: last.
        let not_run = |t: &str| {
            run.results[t]
                .as_ref()
                .is_err_and(|f| f.contains("` not run: `"))
        };
        failed.sort_by_key(|t| (not_run(t), crate::check_focus::specificity(chapter, t)));
        let failures: Vec<&String> = failed
            .iter()
            .filter_map(|t| run.results[*t].as_ref().err())
            .collect();
        let status = if tests.is_empty() {
            Status::NoTest
        } else if failures.is_empty() {
            Status::Passed
        } else if failures
            .iter()
            .any(|f| f.contains(&format!("not yet implemented: ex {id}:")))
            || failures.iter().all(|f| stopped_at_another_stub(f, id))
        {
            // Its own stub, or the stub of an exercise its tests run first (ex 11.3's
            // backward runs 11.1's router): nothing of this one can be judged yet.
            Status::NotStarted
        } else {
            // The most specific failure (sorted first above).
            Status::Failing(excerpt(failures[0]))
        };
        let failed = match status {
            Status::Failing(_) => failed
                .iter()
                .map(|t| {
                    (
                        t.to_string(),
                        excerpt(run.results[*t].as_ref().err().unwrap()),
                    )
                })
                .collect(),
            _ => vec![],
        };
        let task = match (stubs.get(id), places.get(id)) {
            (Some(task), _) => task.clone(),
            (None, Some(place)) => place.task.clone(),
            (None, None) => format!("(tests: {})", tests.join(", ")),
        };
        list.push(Exercise {
            id: id.clone(),
            task,
            tests,
            failed,
            status,
        });
    }
    list
}

/// The first lines of a failure, enough to act on.
pub fn excerpt(text: &str) -> String {
    let useful = text
        .lines()
        .take_while(|l| !l.starts_with("stack backtrace:"))
        .filter(|l| !l.trim().is_empty() && !l.starts_with("note: run with"));
    useful.take(30).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::stopped_at_another_stub;

    #[test]
    fn a_test_stopped_at_an_earlier_exercises_stub_is_told_apart() {
        let at_11_1 = "panicked at src/router.rs:17: not yet implemented: ex 11.1: the capacity";
        assert!(stopped_at_another_stub(at_11_1, "11.3"));
        assert!(!stopped_at_another_stub(at_11_1, "11.1"));
        assert!(!stopped_at_another_stub("left: 1, right: 2", "11.3"));
    }
}
