//! One source of minutes: `course.toml`. Every minute the book states agrees with it, the
//! generated teaching pages are what the generator makes now, every exercise section
//! opens with the file and functions to edit and offers three collapsed hints, and the
//! plan names exactly the exercises the stubs hold.

use course::check::{exercises_in, rust_files};
use course::course::Course;
use std::collections::BTreeSet;
use workbook_tests::plan_pages::{book_folder, known_minutes, sections, stated_minutes};
use workbook_tests::{book_pages, repo_root};

fn course() -> Course {
    Course::load(&repo_root()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_teaching_pages_are_what_the_generator_makes_now() {
    let root = repo_root();
    for (path, text) in course::teaching::generated_pages(&course()) {
        let committed = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
        assert!(
            committed == text,
            "{} differs from what course.toml gives now: run `make teaching` and commit it",
            path.display()
        );
    }
}

#[test]
fn exercise_headings_state_the_plans_minutes_and_open_with_the_file_to_edit() {
    let root = repo_root();
    let mut problems = vec![];
    for c in &course().chapters {
        let page = format!("book/src/{}/exercises.md", book_folder(c));
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        let found = sections(&text);
        let headings: Vec<&String> = found.iter().map(|(h, _)| h).collect();
        let wanted: Vec<String> = c.exercises.iter().map(|e| e.heading()).collect();
        if headings != wanted.iter().collect::<Vec<_>>() {
            problems.push(format!(
                "{page}: headings\n  {headings:?}\nbut course.toml gives\n  {wanted:?}"
            ));
            continue;
        }
        for (e, (_, body)) in c.exercises.iter().zip(&found) {
            let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if !first.starts_with(&e.edit_line()) {
                problems.push(format!(
                    "{page}: ex {} must open with `{}`, not `{first}`",
                    e.id,
                    e.edit_line()
                ));
            }
            let tiers = [
                "Hint 1 (a nudge)",
                "Hint 2 (the approach)",
                "Hint 3 (nearly code)",
            ];
            let places: Vec<Option<usize>> = tiers
                .iter()
                .map(|t| body.find(&format!("<details><summary>{t}</summary>")))
                .collect();
            let in_order = places
                .windows(2)
                .all(|w| matches!(w, [Some(a), Some(b)] if a < b));
            if !in_order || places[0].is_none() {
                problems.push(format!(
                    "{page}: ex {} needs the three collapsed hints, in order: {tiers:?}",
                    e.id
                ));
            }
            if body.contains("*Hints*") {
                problems.push(format!(
                    "{page}: ex {} has an uncollapsed *Hints* paragraph",
                    e.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_page_states_the_plans_minutes() {
    let course = course();
    let mut problems = vec![];
    let pages = book_pages();
    for c in &course.chapters {
        let folder = book_folder(c);
        let known = known_minutes(c);
        for (page, text) in pages.iter().filter(|(p, _)| p.starts_with(&folder)) {
            let name = page.file_name().unwrap().to_str().unwrap();
            let here = page.display();
            if name != "exercises.md" && c.reading_of(name).is_none() {
                problems.push(format!("{here}: course.toml has no reading minutes for it"));
            }
            // The time line sits under the title; found by its start, wherever that is.
            let line_of = |start: &str| text.lines().find(|l| l.starts_with(start));
            if name == "index.md" {
                if line_of("*Time: ") != Some(c.time_line().as_str()) {
                    let now = line_of("*Time: ").unwrap_or("(none)");
                    problems.push(format!(
                        "{here}: its time line must be\n  {}\nnot\n  {now}",
                        c.time_line()
                    ));
                }
            } else if let Some(m) = c.reading_of(name) {
                let stated = line_of("*Reading: ").unwrap_or("(none)");
                if !stated.starts_with(&format!("*Reading: {m} minutes.")) {
                    problems.push(format!(
                        "{here}: needs a line `*Reading: {m} minutes. ...*`, not {stated}"
                    ));
                }
            }
            let mut in_code = false;
            for (n, line) in text.lines().enumerate() {
                in_code ^= line.trim_start().starts_with("```");
                if in_code || line.starts_with("## Ex") {
                    continue;
                }
                let lower = line.to_lowercase();
                if lower.contains("an hour") || lower.contains(" × 1") || lower.contains(" x 15") {
                    problems.push(format!(
                        "{here}:{}: a time not from the plan: {line}",
                        n + 1
                    ));
                }
                for m in stated_minutes(line) {
                    if !known.contains(&m) {
                        problems.push(format!(
                            "{here}:{}: {m} minutes is no figure of chapter {}'s plan \
                             ({known:?}): {line}",
                            n + 1,
                            c.id
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The book's one policy for solutions: each exercise's section ends with one folded
/// `Solution` block that includes the solution's code from `solutions/` (which `make
/// handout` replaces), after its hints; no other summary names a solution.
#[test]
fn every_exercise_ends_with_one_folded_solution() {
    let course = course();
    let mut problems = vec![];
    for c in &course.chapters {
        let page = repo_root()
            .join("book/src")
            .join(book_folder(c))
            .join("exercises.md");
        let text = std::fs::read_to_string(&page).unwrap();
        for (heading, body) in sections(&text) {
            let blocks: Vec<&str> = body.split("<details><summary>Solution</summary>").collect();
            let last = blocks.last().copied().unwrap_or("");
            let ok = blocks.len() == 2
                && last.contains("{{#include ../../../solutions/")
                && !last.contains("<summary>Hint")
                && !body.contains("<summary>A solution");
            if !ok {
                problems.push(format!("{}: {heading}", page.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "each exercise needs one <details><summary>Solution</summary> block after its hints, \
         including from solutions/:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_pages_reading_minutes_follow_the_rule() {
    let course = course();
    let book = repo_root().join("book/src");
    let mut wrong = vec![];
    for c in &course.chapters {
        for (page, _) in &c.reading {
            let path = book.join(book_folder(c)).join(page);
            let load = course::reading::measure(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            if c.reading_of(page) != Some(load.minutes()) {
                wrong.push(format!(
                    "chapter {} {page}: course.toml says {:?}, the rule {} ({load:?})",
                    c.id,
                    c.reading_of(page),
                    load.minutes()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "reading minutes against course::reading's rule (set them in course.toml, then \
         make teaching):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_plan_names_exactly_the_exercises_of_the_stubs() {
    let root = repo_root();
    let course = course();
    let mut problems = vec![];
    for c in &course.chapters {
        let dir = root.join("chapters").join(book_folder(c));
        let stubs: BTreeSet<String> = exercises_in(&dir).into_keys().collect();
        let planned: BTreeSet<String> = c.exercises.iter().map(|e| e.id.clone()).collect();
        if stubs != planned {
            problems.push(format!(
                "chapter {}: stubs {stubs:?}, course.toml {planned:?}",
                c.id
            ));
        }
        for e in &c.exercises {
            let found = functions_with_stub(&root.join(&e.file), &e.id);
            let listed: BTreeSet<String> = e.functions.iter().cloned().collect();
            if found != listed {
                problems.push(format!(
                    "ex {}: {} holds its stubs in {found:?}; course.toml says {listed:?}",
                    e.id, e.file
                ));
            }
        }
        assert!(rust_files(&dir.join("src"))
            .iter()
            .any(|f| f.ends_with("lib.rs")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The functions of `file` that hold a `todo!("ex ID: ...")`.
fn functions_with_stub(file: &std::path::Path, id: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let (mut function, mut found) = (String::new(), BTreeSet::new());
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("pub fn ").or_else(|| t.strip_prefix("fn ")) {
            function = rest.split(['(', '<']).next().unwrap_or("").to_string();
        }
        if t.contains(&format!("todo!(\"ex {id}:")) && !t.starts_with("//") {
            found.insert(function.clone());
        }
    }
    found
}

/// Every teaching page ends with collapsed speaker notes; every exercises page with its
/// instructor notes, collapsed too.
#[test]
fn every_page_has_collapsed_speaker_notes() {
    let mut problems = vec![];
    for c in &course().chapters {
        let folder = book_folder(c);
        for (page, text) in book_pages().iter().filter(|(p, _)| p.starts_with(&folder)) {
            let exercises = page.ends_with("exercises.md");
            let summary = if exercises {
                "<details><summary>Speaker notes: the exercises</summary>"
            } else {
                "<details><summary>Speaker notes</summary>"
            };
            let notes = text.rfind(summary);
            let bullets = notes
                .map(|at| text[at..].matches("\n- ").count())
                .unwrap_or(0);
            if bullets < 3 {
                problems.push(format!(
                    "{}: no `{summary}` with at least 3 notes",
                    page.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
