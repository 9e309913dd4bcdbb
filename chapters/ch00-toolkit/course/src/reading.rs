//! Reading minutes, derived from the page by one rule, so that a dense page is not
//! promised in the time of a light one (`tests/tests/course_minutes.rs` holds course.toml
//! to it; the teaching page states it):
//!
//! - prose at [`WORDS_PER_MIN`] words a minute (a technical text read to be used, not
//!   skimmed);
//! - code at [`CODE_LINES_PER_MIN`] lines a minute (read line by line);
//! - captured output at [`OUTPUT_LINES_PER_MIN`] lines a minute (read for what the text
//!   points at);
//!
//! `{{#include file}}` and `{{#include file:anchor}}` count as the lines they show; text
//! inside `<details>` (hints, answers, solutions, speaker notes) does not count: it is read
//! when needed, and the exercises' own minutes cover it. The sum is rounded up to a
//! multiple of 5 minutes, 5 at the least.
//!
//! Run: `cargo run -q -p course --bin workbook -- reading` prints each page's figures.

use std::path::Path;

/// Prose words read per minute.
pub const WORDS_PER_MIN: f64 = 150.0;
/// Lines of code read per minute.
pub const CODE_LINES_PER_MIN: f64 = 20.0;
/// Lines of captured output read per minute.
pub const OUTPUT_LINES_PER_MIN: f64 = 40.0;

/// What a page asks of its reader.
#[derive(Debug, Default, PartialEq)]
pub struct Load {
    /// Words of prose (tables included), outside code blocks and `<details>`.
    pub words: usize,
    /// Lines of code shown (`rust`, `sh`, `toml`... blocks and their includes).
    pub code_lines: usize,
    /// Lines of captured output shown (`text` blocks and their includes).
    pub output_lines: usize,
}

impl Load {
    /// The page's reading minutes by the rule.
    pub fn minutes(&self) -> u32 {
        let raw = self.words as f64 / WORDS_PER_MIN
            + self.code_lines as f64 / CODE_LINES_PER_MIN
            + self.output_lines as f64 / OUTPUT_LINES_PER_MIN;
        ((raw / 5.0).ceil() as u32 * 5).max(5)
    }
}

/// Measures the page at `path` (its includes are read relative to its folder).
pub fn measure(path: &Path) -> std::io::Result<Load> {
    let text = std::fs::read_to_string(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut load = Load::default();
    let (mut fence, mut details) = (None::<bool>, 0usize);
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(lang.trim().is_empty() || lang.starts_with("text")),
            };
            continue;
        }
        let was_inside = details > 0;
        details += line.matches("<details").count();
        details = details.saturating_sub(line.matches("</details>").count());
        if was_inside || details > 0 {
            continue;
        }
        let shown = included_lines(folder, trimmed).unwrap_or(1);
        match fence {
            Some(true) => load.output_lines += shown,
            Some(false) => load.code_lines += shown,
            None => load.words += line.split_whitespace().count(),
        }
    }
    Ok(load)
}

/// The number of lines an `{{#include file[:anchor]}}` line shows, if it is one.
fn included_lines(folder: &Path, line: &str) -> Option<usize> {
    let inner = line.strip_prefix("{{#include ")?.strip_suffix("}}")?;
    let (file, anchor) = match inner.split_once(':') {
        Some((f, a)) => (f, Some(a)),
        None => (inner, None),
    };
    let text = std::fs::read_to_string(folder.join(file.trim())).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let Some(anchor) = anchor else {
        return Some(lines.len());
    };
    let (start, end) = (format!("ANCHOR: {anchor}"), format!("ANCHOR_END: {anchor}"));
    let from = lines.iter().position(|l| l.contains(&start))?;
    let to = lines[from..].iter().position(|l| l.contains(&end))?;
    Some(to.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_code_and_output_count_at_their_own_pace_and_details_not_at_all() {
        let dir = std::env::temp_dir().join(format!("reading-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let code = "fn a() {}\n// ANCHOR: b\nline 1\nline 2\n// ANCHOR_END: b\n";
        std::fs::write(dir.join("code.rs"), code).unwrap();
        let page = "one two three\n\n```rust\n{{#include code.rs:b}}\n```\n\n```text\nout\n```\n\
                    <details><summary>Answer</summary>hidden words\n</details>\n";
        std::fs::write(dir.join("page.md"), page).unwrap();
        let load = measure(&dir.join("page.md")).unwrap();
        assert_eq!(
            load,
            Load {
                words: 3,
                code_lines: 2,
                output_lines: 1
            }
        );
        assert_eq!(load.minutes(), 5);
        let long = Load {
            words: 1500,
            code_lines: 60,
            output_lines: 60,
        };
        assert_eq!(long.minutes(), 15); // 10 + 3 + 1.5 = 14.5 → 15
        std::fs::remove_dir_all(dir).unwrap();
    }
}
