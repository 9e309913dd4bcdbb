//! The rules about the book and files, and the course tooling, build without MPI or
//! LibTorch: `cargo tree` of each shows none of mpi, mpi-sys, tch, torch-sys (nor the
//! toolkit, which links MPI). Adding such a dependency to either fails here, by name.
//!
//! Run: `cargo test -q -p workbook-tests --test no_mpi`.

use workbook_tests::repo_root;

/// The packages that must stay free of MPI and LibTorch.
const FREE: &[&str] = &["workbook-tests", "course", "workbook-settings"];

/// The packages that link MPI or LibTorch.
const HEAVY: &[&str] = &[
    "mpi",
    "mpi-sys",
    "tch",
    "torch-sys",
    "toolkit",
    "torch-link",
];

/// The names of every package in `cargo tree -p package` (all dependency kinds).
fn tree(package: &str) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["tree", "-q", "-p", package, "--prefix", "none", "-e", "all"])
        .current_dir(repo_root())
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let names = text.lines().filter_map(|l| l.split_whitespace().next());
    names.map(str::to_string).collect()
}

#[test]
fn the_rules_and_the_course_tooling_link_neither_mpi_nor_libtorch() {
    let mut found = vec![];
    for package in FREE {
        let names = tree(package);
        assert!(names.iter().any(|n| n == package), "{package}: {names:?}");
        for heavy in HEAVY {
            if names.iter().any(|n| n == heavy) {
                found.push(format!(
                    "{package} depends on {heavy} (cargo tree -p {package})"
                ));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
