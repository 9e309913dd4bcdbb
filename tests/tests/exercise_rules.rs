//! The exercise rules, for every chapter: a stub fails loudly with its exercise number,
//! its solution mirrors it and holds no `todo!`, and each exercise has a test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toolkit::check::{exercise_of, exercises_in, rust_files};
use workbook_tests::repo_root;

fn chapters() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo_root().join("chapters"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn chapter_number(dir: &Path) -> u32 {
    let name = dir.file_name().unwrap().to_str().unwrap();
    name[2..4]
        .parse()
        .expect("chapter folders are named chNN-slug")
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
