//! Every lab and benchmark binary of the workspace has a name of its own. Cargo puts all
//! binaries in one folder (`target/<profile>/`): two chapters' `train` overwrote each
//! other there, and chapter 6's tests ran chapter 7's trainer.
//!
//! Run: `cargo test -p workbook-tests --test binary_names`.

use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn no_two_chapters_share_a_binary_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // The chapters of the registry (course.toml).
    let chapters = course::registry::chapter_dirs(&root).unwrap();
    for chapter in chapters {
        let bins = chapter.join("src/bin");
        for bin in std::fs::read_dir(&bins).into_iter().flatten().flatten() {
            let name = bin
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string();
            let owner = chapter.file_name().unwrap().to_string_lossy().into_owned();
            seen.entry(name).or_default().push(owner);
        }
    }
    let shared: Vec<_> = seen.iter().filter(|(_, owners)| owners.len() > 1).collect();
    assert!(
        shared.is_empty(),
        "binary names used by more than one chapter: {shared:?}"
    );
    assert!(seen.len() > 10, "found only {seen:?}: is the walk right?");
}

/// Every lab is a program, not a test harness: `[[bin]] ... test = false` in its chapter's
/// Cargo.toml. Without it `cargo test` links a test harness per lab (LibTorch and MPI in
/// each) that holds no test: 48 links per build before this rule.
#[test]
fn every_lab_is_built_without_a_test_harness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = vec![];
    for chapter in course::registry::chapter_dirs(&root).unwrap() {
        let manifest = std::fs::read_to_string(chapter.join("Cargo.toml")).unwrap();
        let declared: Vec<&str> = manifest.split("[[bin]]").skip(1).collect();
        for bin in std::fs::read_dir(chapter.join("src/bin"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let file = bin.file_name().to_string_lossy().into_owned();
            let name = file.trim_end_matches(".rs");
            let quiet = declared.iter().any(|d| {
                let d = d.split("\n[").next().unwrap_or("");
                d.contains(&format!("name = \"{name}\"")) && d.contains("test = false")
            });
            if !quiet {
                missing.push(format!("{}: {name}", chapter.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "labs without `[[bin]] name = \"...\" path = \"...\" test = false` in their \
         chapter's Cargo.toml: {missing:?}"
    );
}
