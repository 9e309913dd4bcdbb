//! Every test of a chapter's `tests/` is either named after one exercise (`exN_M_...`) or
//! declared in course.toml's `[chapter.waits_for]` with the exercises it waits for, so
//! that `make check` can tell a test waiting for unfinished exercises from a failure.
//! Every declared test exists, and waits only for exercises of its chapter.

use course::check::{exercise_of, rust_files};
use course::course::Course;
use std::collections::BTreeSet;
use workbook_tests::repo_root;

/// The test functions of a file that a learner's `make check` runs: `#[test] fn NAME` and
/// `mpi_test!`'s `fn NAME(world at`, less those built only with the solutions
/// (`#[cfg(feature = "solution")]`: the planted faults), which `make check` never sees.
fn tests_in(text: &str) -> Vec<String> {
    let mut names = vec![];
    let (mut after_test_attr, mut solution_only) = (false, false);
    for line in text.lines().map(str::trim) {
        if line == "#[test]" {
            after_test_attr = true;
            continue;
        }
        if line == "#[cfg(feature = \"solution\")]" {
            solution_only = true;
            continue;
        }
        let Some(rest) = line.strip_prefix("fn ").or(line.strip_prefix("pub fn ")) else {
            after_test_attr &= line.starts_with("#[");
            solution_only &= line.starts_with("#[") || line.starts_with("///");
            continue;
        };
        let (name, args) = rest.split_once('(').unwrap_or((rest, ""));
        let mpi = args.split_whitespace().nth(1) == Some("at");
        if (after_test_attr || mpi) && !solution_only {
            names.push(name.to_string());
        }
        (after_test_attr, solution_only) = (false, false);
    }
    names
}

/// Every test a learner's `make check` runs in chapter `id`: (its file, relative to the
/// root; its name).
fn chapter_tests(root: &std::path::Path, id: &str) -> Vec<(String, String)> {
    let dir = course::registry::chapter_dir(root, id).unwrap();
    let mut all = vec![];
    for file in rust_files(&dir.join("tests")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        all.extend(tests_in(&text).into_iter().map(|name| (rel.clone(), name)));
    }
    all
}

#[test]
fn the_parser_finds_plain_and_mpi_tests() {
    let text = "#[test]\n#[ignore]\nfn a() {}\nfn helper() {}\nmpi_test! {\n    fn ex1_2_b(world at &[2]) {\n";
    assert_eq!(tests_in(text), ["a", "ex1_2_b"]);
    let planted =
        "#[cfg(feature = \"solution\")]\n#[test]\nfn planted_x() {}\n#[test]\nfn c() {}\n";
    assert_eq!(tests_in(planted), ["c"]);
}

#[test]
fn every_test_not_named_after_an_exercise_is_declared_in_course_toml() {
    let root = repo_root();
    let course = Course::load(&root).unwrap();
    let mut problems = vec![];
    for chapter in &course.chapters {
        let dir = course::registry::chapter_dir(&root, &chapter.id).unwrap();
        let mut found = BTreeSet::new();
        for (rel, name) in chapter_tests(&root, &chapter.id) {
            if exercise_of(&name).is_none() && !chapter.waits_for.contains_key(&name) {
                problems.push(format!(
                    "{rel}: test `{name}` is not named after one exercise and course.toml's \
                     chapter {} does not declare it: add `{name} = [\"N.M\", ...]` (the \
                     exercises it waits for, [] for none) under its [chapter.waits_for]",
                    chapter.id
                ));
            }
            found.insert(name);
        }
        for (name, ids) in &chapter.waits_for {
            if !found.contains(name) {
                problems.push(format!(
                    "course.toml chapter {}: `{name}` under [chapter.waits_for] is no test of {}",
                    chapter.id,
                    dir.display()
                ));
            }
            for id in ids {
                if !chapter.exercises.iter().any(|e| &e.id == id) {
                    problems.push(format!(
                        "course.toml chapter {}: `{name}` waits for ex {id}, not an exercise of the chapter",
                        chapter.id
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every exercise test of a chapter is listed under `[chapter.checks]` with the functions
/// it checks, each a function of its exercise; every listed test exists. `make check` ranks
/// a failing exercise's tests by it (the fewest functions first) and "Next:" opens them.
#[test]
fn every_exercise_test_names_the_functions_it_checks_in_course_toml() {
    let root = repo_root();
    let course = Course::load(&root).unwrap();
    let mut problems = vec![];
    for chapter in &course.chapters {
        let dir = course::registry::chapter_dir(&root, &chapter.id).unwrap();
        let tests = chapter_tests(&root, &chapter.id)
            .into_iter()
            .map(|(_, name)| name);
        let found: BTreeSet<String> = tests.filter(|n| exercise_of(n).is_some()).collect();
        for name in &found {
            if !chapter.checks.contains_key(name) {
                problems.push(format!(
                    "{}: test `{name}` is not under course.toml's [chapter.checks] of chapter {}: \
                     add `{name} = [\"function\", ...]` (the functions of its exercise it checks)",
                    dir.display(),
                    chapter.id
                ));
            }
        }
        for name in chapter.checks.keys() {
            let functions = chapter.checked(name).map(|(_, fs)| fs).unwrap_or_default();
            let id = exercise_of(name).unwrap_or_default();
            let exercise = chapter.exercises.iter().find(|e| e.id == id);
            let at = format!(
                "course.toml chapter {}, [chapter.checks] {name}",
                chapter.id
            );
            match exercise {
                _ if !found.contains(name) => problems.push(format!("{at}: no such test")),
                None => problems.push(format!("{at}: no exercise {id} in the chapter")),
                Some(e) => {
                    for f in functions.iter().filter(|f| !e.functions.contains(f)) {
                        problems.push(format!(
                            "{at}: `{f}` is not one of ex {id}'s functions {:?}",
                            e.functions
                        ));
                    }
                    if functions.is_empty() {
                        problems.push(format!("{at}: names no function"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every mistake `make check-the-check` injects still applies: its solution file exists,
/// its `find` occurs there exactly once, its exercise is the course's, its function is
/// one of that exercise's, and a capture goes to a page's output folder. Checked here, in
/// every `make test`, so that a solution edited since fails in seconds, not in the weekly
/// run.
#[test]
fn every_injected_mistake_still_applies_to_its_solution() {
    let root = repo_root();
    let course = Course::load(&root).unwrap();
    let path = root.join("scripts/check_the_check/mistakes.toml");
    let list: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    let mistakes = list["mistake"].as_array().expect("[[mistake]] entries");
    assert!(
        mistakes.len() >= 30,
        "fewer than 30 mistakes in {}",
        path.display()
    );
    let mut problems = vec![];
    for m in mistakes {
        let field = |k: &str| m.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
        let (id, file, find) = (field("id"), field("file"), field("find"));
        let text = std::fs::read_to_string(root.join(&file)).unwrap_or_default();
        if text.matches(&find).count() != 1 {
            problems.push(format!(
                "{id}: `find` occurs {} times in {file} (once expected): update the mistake",
                text.matches(&find).count()
            ));
        }
        match course.exercise(&field("exercise")) {
            Some((_, e)) if e.functions.contains(&field("function")) => {}
            Some((_, e)) => problems.push(format!(
                "{id}: function `{}` is not one of ex {}'s {:?}",
                field("function"),
                e.id,
                e.functions
            )),
            None => problems.push(format!("{id}: no exercise {}", field("exercise"))),
        }
        let capture = field("capture");
        let in_output = capture.starts_with("book/src/") && capture.contains("/output/check-");
        if !capture.is_empty() && (!in_output || field("says").is_empty()) {
            problems.push(format!(
                "{id}: a capture goes to book/src/<chapter>/output/check-*.txt, with `says`"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
