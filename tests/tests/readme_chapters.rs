//! The README's chapter table is the course plan's: one row per chapter of `course.toml`,
//! in its order, naming the chapter's crate folder and its number of exercises ("N
//! exercises" or "N warm-up exercises"). A chapter added to the plan without its row, or an
//! exercise added without the count, fails here.
//!
//! Run: `cargo test -q -p workbook-tests --test readme_chapters`.

use course::course::Course;
use workbook_tests::repo_root;

/// The rows of the table under `## Chapters`: (NN, crate, status text).
fn rows(readme: &str) -> Vec<(String, String, String)> {
    let table = readme
        .split("\n## Chapters\n")
        .nth(1)
        .expect("README.md has a '## Chapters' section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            let [nn, krate, status] = cells[..] else {
                return None;
            };
            let nn = nn.trim();
            (nn.len() == 2 && nn.chars().all(|c| c.is_ascii_digit())).then(|| {
                let krate = krate.trim().trim_matches('`').to_string();
                (nn.to_string(), krate, status.trim().to_string())
            })
        })
        .collect()
}

#[test]
fn the_readme_lists_every_chapter_with_its_exercise_count() {
    let root = repo_root();
    let plan = Course::load(&root).unwrap_or_else(|e| panic!("{e}"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let rows = rows(&readme);
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let want: Vec<&str> = plan.chapters.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids, want,
        "README.md's chapter table lists chapters {ids:?}; course.toml has {want:?}: add or \
         remove the rows under '## Chapters'"
    );
    for (chapter, (nn, krate, status)) in plan.chapters.iter().zip(&rows) {
        let folder = chapter.code.dir.rsplit('/').next().unwrap_or_default();
        assert_eq!(
            krate, folder,
            "README.md row {nn} names crate `{krate}`; course.toml's folder is `{folder}`"
        );
        let n = chapter.exercises.len();
        let count_said = [
            format!("; {n} exercises"),
            format!("; {n} warm-up exercises"),
        ];
        assert!(
            count_said.iter().any(|c| status.ends_with(c.as_str())),
            "README.md row {nn} ends '{}' but chapter {nn} has {n} exercises in course.toml: \
             end the row with '; {n} exercises'",
            status.rsplit(';').next().unwrap_or_default().trim()
        );
    }
}
