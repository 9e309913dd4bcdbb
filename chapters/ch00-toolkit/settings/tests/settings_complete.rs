//! The settings table ([`workbook_settings::settings::SETTINGS`]) is complete: every environment
//! variable the tree reads is either listed there or in [`NOT_OURS`] with the reason.
//!
//! A read is `env::var("X")`, `env::var_os("X")`, `getenv("X")` or Python's
//! `os.environ.get("X")` / `os.environ["X"]`. Where a file reads a variable through a name
//! held elsewhere (`var(k)` over a list, `var(POLICY)`), every ALL_CAPS string literal
//! within [`NEAR`] lines of the read counts as read. Every `WORKBOOK_*` name anywhere
//! (prose included) must be listed too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use workbook_settings::settings::SETTINGS;

/// Read, not ours: a name, or a prefix ending in `_`, and why the table leaves it out.
const NOT_OURS: &[(&str, &str)] = &[
    (
        "OMPI_",
        "set by Open MPI's mpirun for each rank, or Open MPI's own MCA parameters",
    ),
    ("PMI_", "set by MPICH's Hydra (mpiexec) for each rank"),
    (
        "PMIX_",
        "set by a PMIx launcher (Open MPI, srun --mpi=pmix) for each rank",
    ),
    ("SLURM_", "set by Slurm in a job"),
    (
        "CARGO",
        "set by cargo for the programs and build scripts it runs",
    ),
    ("CARGO_", "set by cargo (CARGO_PKG_NAME, CARGO_HOME, ...)"),
    (
        "DEP_TCH_LIBTORCH_LIB",
        "set by cargo from torch-sys's `links` metadata",
    ),
    (
        "LIBCLANG_PATH",
        "clang-sys's own setting, honoured by scripts/find_libclang.py",
    ),
    (
        "WORLD_SIZE",
        "set by torchrun for each rank (scripts/anchors: without it a mirror is one process)",
    ),
    ("LD_LIBRARY_PATH", "the OS's library search path"),
    ("LIBRARY_PATH", "the linker's library search path"),
    (
        "CUDA_VISIBLE_DEVICES",
        "CUDA's (or the scheduler's) choice of GPUs",
    ),
    ("HOME", "the OS"),
    ("USER", "the OS"),
    ("PATH", "the OS"),
];

/// This file, from the repository root.
const SELF: &str = "chapters/ch00-toolkit/settings/tests/settings_complete.rs";

/// The folders searched, from the repository root.
const DIRS: &[&str] = &["chapters", "solutions", "tests", "benches", "scripts"];

#[test]
fn every_variable_the_tree_reads_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut unlisted = BTreeSet::new();
    for dir in DIRS {
        for file in walk(&root.join(dir), &["rs", "sh", "py"]) {
            // This file's samples and reader list are not reads (it reads none at run time).
            if file.ends_with(SELF) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for name in variables_read(&text) {
                if !listed(&name) && !not_ours(&name) {
                    let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                    unlisted.insert(format!("{name} (read in {shown})"));
                }
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "read but neither in SETTINGS (settings/src/settings.rs) nor in NOT_OURS: {unlisted:#?}"
    );
}

/// Every `WORKBOOK_*` name used anywhere in the repository (code, scripts, the book) is
/// listed, so the book's table is complete.
#[test]
fn every_workbook_name_in_the_tree_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut unlisted = BTreeSet::new();
    for dir in DIRS.iter().chain(&["book/src"]) {
        for file in walk(&root.join(dir), &["rs", "md", "sh", "toml", "py"]) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for part in text.split("WORKBOOK_").skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                let full = format!("WORKBOOK_{name}");
                if !name.is_empty() && !listed(&full) {
                    unlisted.insert(format!("{full} ({})", file.display()));
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "not in SETTINGS: {unlisted:?}");
}

/// The scanner finds each form of read, and nothing else, so the tests above can fail.
#[test]
fn the_scanner_finds_every_form_of_read() {
    let rust = r#"let a = std::env::var("ALPHA_ONE"); let b = env::var_os( "BETA" );
                  let c = libc::getenv("GAMMA"); cmd.env("SET_ONLY", "1");"#;
    assert_eq!(variables_read(rust), ["ALPHA_ONE", "BETA", "GAMMA"]);
    let indirect = r#"for k in ["FIRST_K", "SECOND"] { std::env::var(k); } say("Hi", "lower_x");"#;
    assert_eq!(variables_read(indirect), ["FIRST_K", "SECOND"]);
    let far = format!(
        "const TAG: &str = \"FAR_AWAY\";{}{indirect}",
        "\n".repeat(NEAR + 1)
    );
    assert_eq!(variables_read(&far), ["FIRST_K", "SECOND"]);
    let python = r#"os.environ.get("PY_ONE") or os.environ["PY_TWO"]"#;
    assert_eq!(variables_read(python), ["PY_ONE", "PY_TWO"]);
    assert!(listed("THREADS") && !listed("THREADS_X"));
    assert!(listed("KILL_RANK") && !listed("KILL_EVERYONE"));
    assert!(not_ours("OMPI_COMM_WORLD_SIZE") && not_ours("CARGO") && !not_ours("CARGOX"));
}

/// In the table, or the end of a name in it: a read that composes its name
/// (`format!("{prefix}_{k}")` with `k` = `"KILL_RANK"`, as `trainer_kit::fault` does for
/// `CH06_KILL_RANK` and `CH07_KILL_RANK`) shows only the end as a literal.
fn listed(name: &str) -> bool {
    let end = format!("_{name}");
    SETTINGS
        .iter()
        .any(|s| s.name == name || s.name.ends_with(&end))
}

fn not_ours(name: &str) -> bool {
    NOT_OURS.iter().any(|(n, _)| {
        if n.ends_with('_') {
            name.starts_with(n)
        } else {
            name == *n
        }
    })
}

/// The calls that read one variable, each followed by its argument.
const READERS: &[&str] = &["var(", "var_os(", "getenv(", "environ.get(", "environ["];

/// How many lines either side of a read through a name held elsewhere (`var(k)`) may hold
/// the names it reads: the list it loops over, the `const` it names.
const NEAR: usize = 8;

/// The variables `text` reads, sorted, each once.
fn variables_read(text: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    let mut indirect = vec![];
    for reader in READERS {
        for (at, _) in text.match_indices(reader) {
            // `var(` must be a call of its own, not the end of `my_var(` or `.env_var(`.
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let arg = text[at + reader.len()..].trim_start();
            match arg.strip_prefix('"') {
                Some(rest) => {
                    let name: String = rest.chars().take_while(|c| *c != '"').collect();
                    names.insert(name);
                }
                None => indirect.push(text[..at].lines().count()),
            }
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    for line in indirect {
        let near = &lines[line.saturating_sub(NEAR + 1)..(line + NEAR).min(lines.len())];
        names.extend(caps_literals(&near.join("\n")));
    }
    names.into_iter().filter(|n| !n.is_empty()).collect()
}

/// Every string literal of `text` that looks like a variable's name: `A_B9`, two or more
/// characters, upper case, digits and `_`.
fn caps_literals(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.len() >= 2 && s.starts_with(|c: char| c.is_ascii_uppercase()))
        .filter(|s| {
            s.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .map(String::from)
        .collect()
}

fn walk(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() && name != "target" && name != "output" {
            out.extend(walk(&path, extensions));
        } else if extensions.iter().any(|x| name.ends_with(&format!(".{x}"))) {
            out.push(path);
        }
    }
    out
}
