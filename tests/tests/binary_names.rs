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
