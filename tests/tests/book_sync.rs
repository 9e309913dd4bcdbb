//! The book and the code never drift: the book shows code only through anchored includes
//! of real files, and every include points at a file and anchors that exist.

use workbook_tests::{book_pages, includes, repo_root};

/// The chapters' ids ("00", "01", ...), from course.toml (the registry).
fn chapter_ids() -> Vec<String> {
    let all = course::registry::crates(&repo_root()).unwrap();
    all.into_iter().map(|(id, _)| id).collect()
}

#[test]
fn every_include_points_at_a_real_file_and_anchor() {
    let book = repo_root().join("book/src");
    let mut problems = vec![];
    let mut count = 0;
    for (page, text) in book_pages() {
        let here = page.display().to_string();
        for (path, anchor) in includes(&text) {
            count += 1;
            let target = book.join(&page).parent().unwrap().join(&path);
            let Ok(source) = std::fs::read_to_string(&target) else {
                problems.push(format!("{here}: includes {path}, which does not exist"));
                continue;
            };
            if let Some(anchor) = anchor {
                if anchor.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    problems.push(format!(
                        "{here}: {path}:{anchor} uses line numbers; use an anchor"
                    ));
                    continue;
                }
                let start = source.contains(&format!("ANCHOR: {anchor}\n"));
                let end = source.contains(&format!("ANCHOR_END: {anchor}\n"));
                if !(start && end) {
                    problems.push(format!(
                        "{here}: {path} has no ANCHOR/ANCHOR_END `{anchor}`"
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "book includes out of sync:\n{}",
        problems.join("\n")
    );
    assert!(count > 0, "the book includes no code at all");
}

#[test]
fn rust_blocks_in_the_book_hold_only_includes() {
    let mut problems = vec![];
    for (page, text) in book_pages() {
        let here = page.display().to_string();
        let mut in_rust = false;
        for (n, line) in text.lines().enumerate() {
            let fence = line.trim_start();
            if let Some(lang) = fence.strip_prefix("```") {
                if in_rust {
                    in_rust = false;
                } else if lang.starts_with("rust") {
                    in_rust = true;
                    if !lang.contains("ignore") {
                        problems.push(format!("{here}:{}: mark rust blocks `rust,ignore`", n + 1));
                    }
                }
                continue;
            }
            if in_rust && !line.trim().is_empty() && !line.trim().starts_with("{{#") {
                problems.push(format!(
                    "{here}:{}: code pasted into the book: {line}",
                    n + 1
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "include code, never paste it:\n{}",
        problems.join("\n")
    );
}

#[test]
fn summary_lists_every_chapter_and_every_page_exists() {
    let book = repo_root().join("book/src");
    let summary = std::fs::read_to_string(book.join("SUMMARY.md")).unwrap();
    for nn in chapter_ids() {
        assert!(
            summary.contains(&format!("](ch{nn}-")),
            "SUMMARY.md lacks chapter {nn}"
        );
    }
    for link in summary.split("](").skip(1) {
        let page = link.split(')').next().unwrap();
        assert!(
            book.join(page).is_file(),
            "SUMMARY.md links {page}, which does not exist"
        );
    }
}

/// Every chapter's first page states its objectives before the first section, and the
/// chapter (its pages other than the exercises) has a "Key points" summary.
#[test]
fn every_chapter_opens_with_objectives_and_has_key_points() {
    let pages = book_pages();
    let mut problems = vec![];
    for nn in chapter_ids() {
        let prefix = format!("ch{nn}-");
        let chapter: Vec<_> = pages
            .iter()
            .filter(|(p, _)| p.to_string_lossy().starts_with(&prefix))
            .collect();
        let Some((_, index)) = chapter.iter().find(|(p, _)| p.ends_with("index.md")) else {
            problems.push(format!("chapter {nn}: no index.md"));
            continue;
        };
        // The objectives come before the chapter's second section heading.
        let head: String = index
            .split("\n## ")
            .take(2)
            .collect::<Vec<_>>()
            .join("\n## ");
        if !head.contains("Objectives") {
            problems.push(format!(
                "chapter {nn}: index.md does not open with its objectives"
            ));
        }
        let teaching = chapter.iter().filter(|(p, _)| !p.ends_with("exercises.md"));
        if !teaching
            .clone()
            .any(|(_, text)| text.contains("## Key points"))
        {
            problems.push(format!(
                "chapter {nn}: no `## Key points` on its teaching pages"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_notices_a_missing_anchor() {
    let text = "```rust,ignore\n{{#include ../../chapters/x.rs:gone}}\n```";
    assert_eq!(
        includes(text),
        vec![("../../chapters/x.rs".to_string(), Some("gone".to_string()))]
    );
}
