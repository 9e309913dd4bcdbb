//! `make class DIR=folder`: three learners' progress files become one class table in the
//! terminal and `class.html`, rows learners, columns exercises, with where each is stuck.
//! And `make check` keeps what earlier checks found for the other chapters.

use course::progress::{read_class, Progress};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../target/workbook");
    let dir = root.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn learner(name: &str, statuses: &[(&str, &str)]) -> Progress {
    let mut chapters: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (id, status) in statuses {
        let chapter = format!("{:0>2}", id.split('.').next().unwrap());
        chapters
            .entry(chapter)
            .or_default()
            .insert(id.to_string(), status.to_string());
    }
    Progress {
        learner: name.into(),
        host: format!("{name}-laptop"),
        time: "2026-11-30T10:00:00Z".into(),
        chapters,
    }
}

#[test]
fn three_progress_files_make_one_class_table() {
    let dir = scratch("class");
    let ana = learner(
        "ana",
        &[
            ("0.1", "passed"),
            ("0.2", "passed"),
            ("0.3", "passed"),
            ("1.1", "failing"),
            ("1.2", "not started"),
        ],
    );
    let bo = learner(
        "bo",
        &[
            ("0.1", "passed"),
            ("0.2", "not started"),
            ("0.3", "not started"),
        ],
    );
    let cy = learner(
        "cy",
        &[
            ("0.1", "passed"),
            ("0.2", "passed"),
            ("0.3", "passed"),
            ("1.1", "passed"),
            ("1.2", "passed"),
            ("10.1", "passed"),
        ],
    );
    for p in [&ana, &bo, &cy] {
        let text = serde_json::to_string_pretty(p).unwrap();
        std::fs::write(dir.join(format!("{}.json", p.learner)), text).unwrap();
    }
    std::fs::write(dir.join("broken.json"), "{ not json").unwrap();
    let class = read_class(&dir).unwrap();
    assert_eq!(class.learners.len(), 3);
    assert_eq!(class.unreadable.len(), 1, "{:?}", class.unreadable);
    assert_eq!(class.exercises, ["0.1", "0.2", "0.3", "1.1", "1.2", "10.1"]);
    assert_eq!(
        class.stuck_at(&class.learners[0]),
        "stuck at ex 1.1 (failing)"
    );
    assert_eq!(class.stuck_at(&class.learners[1]), "next: ex 0.2");
    assert_eq!(
        class.stuck_at(&class.learners[2]),
        "all checked exercises pass"
    );

    // The command: the terminal table and the HTML page.
    let out_dir = scratch("class-out");
    let run = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .args(["class", dir.to_str().unwrap()])
        .env("WORKBOOK_OUT", &out_dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .to_string()
    };
    assert!(
        row("ana").contains("+    +    +    x    .") && row("ana").contains("stuck at ex 1.1"),
        "{text}"
    );
    assert!(
        row("bo ").contains("+    .    .") && row("bo ").contains("next: ex 0.2"),
        "{text}"
    );
    assert!(
        text.contains("skipped") && text.contains("broken.json"),
        "{text}"
    );
    let html = std::fs::read_to_string(out_dir.join("class.html")).unwrap();
    assert_eq!(html.matches("<tr><th title=").count(), 3, "{html}");
    assert!(
        html.contains("class=\"failing\" title=\"ex 1.1: failing\""),
        "{html}"
    );

    // An empty folder is an error that says what to put there.
    let empty = scratch("class-empty");
    let run = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .args(["class", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("no progress files"));
    for d in [dir, out_dir, empty] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_check_keeps_the_other_chapters_of_the_progress_file() {
    let out_dir = scratch("progress");
    // Progress::record writes under WORKBOOK_OUT: run it in a child process of this test
    // binary would be heavier; set it here, this test is the only one that reads it.
    std::env::set_var("WORKBOOK_OUT", &out_dir);
    std::env::set_var("WORKBOOK_LEARNER", "dee");
    let one = BTreeMap::from([("0.1".to_string(), "passed".to_string())]);
    let two = BTreeMap::from([("1.1".to_string(), "failing".to_string())]);
    Progress::record("00", one.clone()).unwrap();
    Progress::record("01", two.clone()).unwrap();
    let text = std::fs::read_to_string(out_dir.join("progress.json")).unwrap();
    let back: Progress = serde_json::from_str(&text).unwrap();
    assert_eq!(back.learner, "dee");
    assert_eq!(back.chapters.get("00"), Some(&one));
    assert_eq!(back.chapters.get("01"), Some(&two));
    assert!(
        !out_dir.join("progress.tmp").exists(),
        "the temp file was left behind"
    );
    std::fs::remove_dir_all(out_dir).unwrap();
}
