//! The exercise rules, for every chapter: a stub fails loudly with its exercise number,
//! its solution mirrors it and holds no `todo!`, each exercise has a test, and the learner
//! meets no answer before trying: planted mistakes live with the solutions, and the book
//! shows solution code only after the exercise, collapsed.

use course::check::{exercise_of, exercises_in, rust_files};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use workbook_tests::answers::given_away;
use workbook_tests::{book_pages, files_under, includes, repo_root};

/// The chapters' crate folders: the registry's (course.toml).
fn chapters() -> Vec<PathBuf> {
    course::registry::chapter_dirs(&repo_root()).unwrap()
}

fn chapter_number(dir: &Path) -> u32 {
    let name = dir.file_name().unwrap().to_str().unwrap();
    name[2..4]
        .parse()
        .expect("chapter folders are named chNN-slug")
}

/// The `[[test]]` tables of a chapter's Cargo.toml, as text.
fn test_tables(dir: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let tables = manifest.split("[[test]]").skip(1);
    tables
        .map(|t| t.split("\n[").next().unwrap().to_string())
        .collect()
}

/// `pub fn name` items of a file.
fn pub_fns(text: &str) -> BTreeSet<String> {
    let names = text.split("pub fn ").skip(1);
    names
        .map(|rest| rest.split(['(', '<']).next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn every_todo_names_its_exercise_and_has_a_todo_comment() {
    let mut problems = vec![];
    for dir in chapters() {
        let nn = chapter_number(&dir);
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            let name = file
                .strip_prefix(repo_root())
                .unwrap()
                .display()
                .to_string();
            let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
            let code = code.collect::<Vec<_>>().join("\n");
            // `todo!(` as code, not inside a string literal such as the checker's own.
            let parts = code.split("todo!(").collect::<Vec<_>>();
            let invoked = parts
                .windows(2)
                .filter(|w| !w[0].ends_with('"'))
                .map(|w| w[1]);
            for part in invoked {
                let Some(rest) = part.strip_prefix("\"ex ") else {
                    problems.push(format!("{name}: a todo!() without \"ex {nn}.M: ...\""));
                    continue;
                };
                let id = rest.split(':').next().unwrap();
                if !id.starts_with(&format!("{nn}.")) {
                    problems.push(format!("{name}: todo!(\"ex {id}\") in chapter {nn:02}"));
                }
                if !text.contains(&format!("// TODO(ex {id}): ")) {
                    problems.push(format!(
                        "{name}: ex {id} has no `// TODO(ex {id}): ...` line"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn solutions_mirror_the_stubs_and_hold_no_todo() {
    let root = repo_root();
    let mut problems = vec![];
    for dir in chapters() {
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        // rustfmt may wrap the attribute over lines: read it with whitespace collapsed.
        let lib = lib.split_whitespace().collect::<Vec<_>>().join(" ");
        let lib = lib
            .replace("( ", "(")
            .replace(", )", ")")
            .replace(" )", ")");
        let mut mirrored = BTreeSet::new();
        for part in lib
            .split("cfg_attr(feature = \"solution\", path = \"")
            .skip(1)
        {
            let rel = part.split('"').next().unwrap();
            let solution = dir.join("src").join(rel);
            let module = part
                .split("mod ")
                .nth(1)
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim();
            let stub = dir.join("src").join(format!("{module}.rs"));
            let (Ok(sol), Ok(stub_text)) = (
                std::fs::read_to_string(&solution),
                std::fs::read_to_string(&stub),
            ) else {
                problems.push(format!(
                    "{}: missing {} or {}",
                    dir.display(),
                    stub.display(),
                    solution.display()
                ));
                continue;
            };
            if sol.contains("todo!(") {
                problems.push(format!("{}: a solution with todo!()", solution.display()));
            }
            if pub_fns(&sol) != pub_fns(&stub_text) {
                problems.push(format!(
                    "{module}: stub and solution differ in public functions: {:?} vs {:?}",
                    pub_fns(&stub_text),
                    pub_fns(&sol)
                ));
            }
            mirrored.insert(solution.canonicalize().unwrap());
        }
        // The chapter's tests kept with the solutions (its planted mistakes) swap nothing in,
        // nor do the modules beside them that they declare (`mod name;`).
        for table in test_tables(&dir) {
            if let Some(rest) = table.split("path = \"").nth(1) {
                let test = dir.join(rest.split('"').next().unwrap());
                let text = std::fs::read_to_string(&test).unwrap_or_default();
                let beside = test.parent().unwrap().to_path_buf();
                for line in text.lines().filter(|l| l.starts_with("mod ")) {
                    let name = line["mod ".len()..].trim_end_matches(';').trim();
                    mirrored.extend(beside.join(format!("{name}.rs")).canonicalize().ok());
                }
                mirrored.extend(test.canonicalize().ok());
            }
        }
        let solutions = root.join("solutions").join(dir.file_name().unwrap());
        for file in rust_files(&solutions) {
            if !mirrored.contains(&file.canonicalize().unwrap()) {
                problems.push(format!("{}: no stub swaps it in", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_exercise_has_a_test_named_after_it() {
    let mut problems = vec![];
    for dir in chapters() {
        let mut tested = BTreeSet::new();
        for file in rust_files(&dir.join("tests")) {
            let text = std::fs::read_to_string(&file).unwrap();
            for part in text.split("fn ").skip(1) {
                let name = part.split('(').next().unwrap();
                tested.extend(exercise_of(name));
            }
        }
        for id in exercises_in(&dir).keys() {
            if !tested.contains(id) {
                problems.push(format!(
                    "{}: ex {id} has no test named ex{}_...",
                    dir.display(),
                    id.replace('.', "_")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A planted mistake is an answer with one thing changed: it lives next to the solutions,
/// and is a test of its chapter built only with `--features solution`.
#[test]
fn planted_mistakes_live_with_the_solutions() {
    let root = repo_root();
    let mut problems = vec![];
    let planted = |p: &Path| p.to_string_lossy().contains("planted_mistakes");
    for file in files_under(&root.join("chapters"), &planted) {
        let name = file.strip_prefix(&root).unwrap().display();
        problems.push(format!(
            "{name}: a planted mistake in the learner's tree; move it to solutions/"
        ));
    }
    for dir in chapters() {
        let slug = dir.file_name().unwrap().to_str().unwrap();
        if !root
            .join("solutions")
            .join(slug)
            .join("planted_mistakes.rs")
            .is_file()
        {
            continue;
        }
        let path = format!("path = \"../../solutions/{slug}/planted_mistakes.rs\"");
        let declared = test_tables(&dir).iter().any(|table| {
            table.contains(&path) && table.contains("required-features = [\"solution\"]")
        });
        if !declared {
            problems.push(format!(
                "{slug}/Cargo.toml: no [[test]] with {path} and required-features = [\"solution\"]"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The book shows solution code (and planted mistakes, which live with the solutions) only
/// where a learner has already tried: on a chapter's `exercises.md`, after its first
/// `## Ex...` heading, inside a collapsed `<details>` block. Teaching pages show given
/// code and the stubs.
#[test]
fn the_book_shows_solutions_only_after_the_exercises_collapsed() {
    let mut problems = vec![];
    for (page, text) in book_pages() {
        let here = page.display().to_string();
        let exercises_page = page.file_name().is_some_and(|n| n == "exercises.md");
        let (mut open, mut after_an_exercise) = (0usize, false);
        for (n, line) in text.lines().enumerate() {
            after_an_exercise |= line.starts_with("## Ex");
            let before = line.split("{{#").next().unwrap();
            let depth = open + before.matches("<details").count();
            let depth = depth.saturating_sub(before.matches("</details>").count());
            for (path, _) in includes(line) {
                if !path.contains("solutions/") {
                    continue;
                }
                let place = format!("{here}:{}: includes {path}", n + 1);
                if !exercises_page {
                    problems.push(format!("{place} on a teaching page; use the stub's anchor"));
                } else if !after_an_exercise {
                    problems.push(format!("{place} before the page's first `## Ex` heading"));
                } else if depth == 0 {
                    problems.push(format!("{place} outside a <details> block"));
                }
            }
            open += line.matches("<details").count();
            open = open.saturating_sub(line.matches("</details>").count());
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No answer one folder from its stub: a function anywhere in `chapters/` (the harness
/// included) named like an exercise's function, other than its stub, shares no statement
/// with the solution, parameters renamed (see `workbook_tests::answers`).
#[test]
fn no_answer_is_given_elsewhere_in_chapters() {
    let problems = given_away(&repo_root(), &chapters());
    assert!(
        problems.is_empty(),
        "answers in chapters/:\n{}",
        problems.join("\n")
    );
}

/// A failing property prints its inputs and keeps no regressions file: such a file, written
/// while a solution was being developed, would be replayed in every learner's run, and
/// proptest's search for where to write it printed a warning before the real message.
#[test]
fn property_tests_keep_no_regression_files() {
    let root = repo_root();
    let mut problems = vec![];
    for dir in [root.join("chapters"), root.join("solutions")] {
        for file in files_under(&dir, &|p| {
            p.extension()
                .is_some_and(|e| e == "rs" || e == "proptest-regressions")
        }) {
            let shown = file.strip_prefix(&root).unwrap().display().to_string();
            if shown.ends_with(".proptest-regressions") {
                problems.push(format!("{shown}: a regressions file (delete it)"));
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for block in text.split("proptest! {").skip(1) {
                let head = block.split("#[test]").next().unwrap();
                if !head.contains("failure_persistence: None") {
                    problems.push(format!(
                        "{shown}: a proptest! block without \
                         #![proptest_config(ProptestConfig {{ failure_persistence: None, .. }})]"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
