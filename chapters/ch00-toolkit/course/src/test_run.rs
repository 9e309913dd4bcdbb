//! Running a chapter's tests with `cargo test` and reading libtest's verdicts, for
//! `make check` and `make verify`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The result of `cargo test` on one package: per test, ok or its failure output.
pub struct TestRun {
    pub results: BTreeMap<String, Result<(), String>>,
    /// Set when the package did not compile: the compiler's errors.
    pub build_error: Option<String>,
}

/// Runs `cargo test -p package` (with the solutions when `solution`).
pub fn cargo_test(root: &Path, package: &str, solution: bool) -> TestRun {
    cargo_test_with(root, package, solution, &[])
}

/// The stubs' check for `make verify`: only the tests of the exercises `ids` (`3.1` runs
/// the tests named `ex3_1_...`), built from the chapter's test binary (`tests/main.rs`):
/// no doc tests, no unit test of the given code (`make test` has just run those with the
/// solutions). Each exercise test stops at its first rank count: a stub fails there.
pub fn cargo_test_exercises(root: &Path, package: &str, dir: &Path, ids: &[String]) -> TestRun {
    let filters: Vec<String> = ids
        .iter()
        .map(|id| format!("ex{}_", id.replace('.', "_")))
        .collect();
    // The chapter's one test binary (tests/main.rs); else every test target.
    let cargo: &[&str] = match dir.join("tests/main.rs").is_file() {
        true => &["--test", "main"],
        false => &["--tests"],
    };
    run(root, package, false, cargo, &filters)
}

/// libtest's name of the test function `name` of the chapter in `dir`: `file::name` when
/// the chapter's tests are one binary (`tests/main.rs`, a module per file of `tests/`)
/// and `tests/file.rs` declares it; else `name`.
pub fn libtest_name(dir: &Path, name: &str) -> String {
    let tests = dir.join("tests");
    if !tests.join("main.rs").is_file() {
        return name.to_string();
    }
    let declares = |file: &str| {
        let text = std::fs::read_to_string(tests.join(format!("{file}.rs"))).unwrap_or_default();
        text.contains(&format!("fn {name}("))
    };
    match test_files(&tests).into_iter().find(|f| declares(f)) {
        Some(file) => format!("{file}::{name}"),
        None => name.to_string(),
    }
}

/// The files directly in `tests/` (`ring` for tests/ring.rs; `main` aside): the modules of
/// the chapter's test binary, `tests/main.rs`.
pub fn test_files(tests: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tests) else {
        return vec![];
    };
    let mut found: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension()? == "rs" && stem != "main").then_some(stem)
        })
        .collect();
    found.sort();
    found
}

/// [`cargo_test`] passing `libtest` to every test binary (e.g. `--exact`, `--skip NAME`).
pub fn cargo_test_with(root: &Path, package: &str, solution: bool, libtest: &[String]) -> TestRun {
    run(root, package, solution, &[], libtest)
}

fn run(root: &Path, package: &str, solution: bool, cargo: &[&str], libtest: &[String]) -> TestRun {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root)
        .args(["test", "-p", package, "--no-fail-fast"])
        .args(cargo);
    // A backtrace of the test harness itself tells a learner nothing.
    cmd.env("RUST_BACKTRACE", "0");
    if solution {
        cmd.args(["--features", "solution"]);
    }
    if !libtest.is_empty() {
        cmd.arg("--").args(libtest);
    }
    let out = crate::waiting::output_telling_the_wait(&mut cmd, package);
    let out = out.expect("cannot run cargo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let results = parse_libtest(&stdout);
    let compile_failed = stderr.contains("could not compile") || stderr.contains("error[E");
    let build_error = (compile_failed && results.is_empty()).then(|| {
        let errors = stderr
            .lines()
            .filter(|l| !l.trim_start().starts_with("Compiling"));
        errors.take(60).collect::<Vec<_>>().join("\n")
    });
    TestRun {
        results,
        build_error,
    }
}

/// Reads libtest's output: `test NAME ... ok|FAILED` lines and `---- NAME stdout ----`
/// sections.
pub fn parse_libtest(stdout: &str) -> BTreeMap<String, Result<(), String>> {
    let mut results = BTreeMap::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        if let Some(name) = rest.strip_suffix(" ... ok") {
            results.insert(name.to_string(), Ok(()));
        } else if let Some(name) = rest.strip_suffix(" ... FAILED") {
            results.insert(name.to_string(), Err(String::new()));
        }
    }
    let mut current: Option<String> = None;
    for line in stdout.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            current = Some(name.to_string());
        } else if line == "failures:" || line.starts_with("test result:") {
            current = None;
        } else if let Some(Err(text)) = current.as_ref().and_then(|n| results.get_mut(n)) {
            text.push_str(line);
            text.push('\n');
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_of_a_chapter_is_known_by_its_file_once_the_chapter_has_tests_main() {
        let chapter = std::env::temp_dir().join(format!("test-names-{}", std::process::id()));
        let tests = chapter.join("tests");
        std::fs::create_dir_all(tests.join("common")).unwrap();
        let given = "#[test]\nfn the_plan_reads_back() {}\nfn helper() {}\n";
        std::fs::write(tests.join("given.rs"), given).unwrap();
        std::fs::write(tests.join("ring.rs"), "fn ex3_1_ring(world at RANKS) {").unwrap();
        std::fs::write(tests.join("notes.txt"), "fn the_plan_reads_back(").unwrap();
        // Without tests/main.rs a test's name is its function's; with it, `file::name`.
        let name = |f: &str| libtest_name(&chapter, f);
        assert_eq!(name("the_plan_reads_back"), "the_plan_reads_back");
        std::fs::write(
            tests.join("main.rs"),
            "mod common;\nmod given;\nmod ring;\n",
        )
        .unwrap();
        assert_eq!(name("the_plan_reads_back"), "given::the_plan_reads_back");
        assert_eq!(name("ex3_1_ring"), "ring::ex3_1_ring");
        assert_eq!(name("not_declared"), "not_declared");
        // The modules: the files of tests/, main.rs and folders aside.
        assert_eq!(test_files(&tests), ["given", "ring"]);
        std::fs::remove_dir_all(&chapter).unwrap();
    }
}
