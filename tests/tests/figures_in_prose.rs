//! Every figure in the book's prose comes from a captured output: a measured quantity
//! quoted in a page's text (a time in µs, ms or s, a bandwidth in GB/s or MB/s, a size in
//! GiB, a percentage, a speed-up like `3.60x`, an efficiency) must appear in one of the
//! output files the page includes (`{{#include output/...}}`) or links (`](output/...)`).
//! A number typed by hand drifts from the run next to it; this test catches it.
//!
//! Numbers that are not measurements (defaults, inputs, targets, arithmetic of a worked
//! answer) are listed in [`NOT_MEASURED`], each with its reason. Code blocks and inline
//! code are not prose and are skipped.
//!
//! Run: `cargo test -p workbook-tests --test figures_in_prose`.

use std::path::Path;
use workbook_tests::{book_pages, repo_root};

#[path = "prose/not_measured.rs"]
mod not_measured;
use not_measured::NOT_MEASURED;

/// Units of a measured quantity; `x` only written against the number (`3.60x`), so that
/// a grid `1024 x 1024` is not a speed-up.
const UNITS: [&str; 9] = ["µs", "us", "ms", "s", "GB/s", "MB/s", "GiB/s", "GiB", "%"];

/// The page's prose: code blocks dropped, inline code and HTML tags blanked.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut inline = false;
        for part in line.split('`') {
            if !inline {
                out.push_str(&without_tags(part));
            }
            out.push(' ');
            inline = !inline;
        }
        out.push('\n');
    }
    out
}

/// `text` with every `<tag ...>` replaced by a space (an image's `width: 50%` is no figure).
fn without_tags(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' if !in_tag => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The measured figures quoted in `text`, as written (`"2.9 ms"`, `"66%"`, `"3.60x"`),
/// with the bare number; and the efficiencies (`efficiency 0.93`).
fn figures(text: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = vec![];
    let mut range_start: Vec<(String, String)> = vec![];
    let mut i = 0;
    while i < chars.len() {
        // A number starts after a non-word character; after `-` only in a range (`0.2-0.4`).
        let boundary = i == 0
            || !(chars[i - 1].is_alphanumeric() || "./_".contains(chars[i - 1]))
                && (chars[i - 1] != '-' || i >= 2 && chars[i - 2].is_ascii_digit());
        if !(chars[i].is_ascii_digit() && boundary) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect::<String>();
        let number = number.trim_end_matches('.').to_string();
        let rest: String = chars[i..chars.len().min(i + 8)].iter().collect();
        let unit = if rest.starts_with('x') {
            Some(("x", 1))
        } else {
            let spaced = rest.strip_prefix(' ').unwrap_or(&rest);
            let skip = rest.len() - spaced.len();
            UNITS
                .iter()
                .filter(|u| spaced.starts_with(**u))
                .max_by_key(|u| u.len())
                .map(|u| (*u, skip + u.chars().count()))
        };
        if let Some((_, len)) = unit {
            let after = chars.get(i + len).copied().unwrap_or(' ');
            if !(after.is_alphanumeric() || after == '/') {
                let written: String = chars[start..i + len].iter().collect();
                found.append(&mut range_start);
                found.push((written, number));
                i += len;
                continue;
            }
        }
        let before: String = chars[start.saturating_sub(24)..start].iter().collect();
        if before.contains("efficienc") && number.contains('.') {
            found.push((number.clone(), number));
            continue;
        }
        // The first number of a range (`7115 to 12282 µs`, `0.2-0.4 s`) counts when the
        // second one has a unit.
        if rest.starts_with(" to ") || rest.starts_with('-') || rest.starts_with('–') {
            range_start = vec![(number.clone(), number.clone())];
            continue;
        }
        range_start.clear();
    }
    found
}

/// Whether `number` occurs in `output` as a whole number: not inside a longer one, and
/// not the integer part of a decimal (`12` is not `12.10`).
fn occurs(number: &str, output: &str) -> bool {
    output.match_indices(number).any(|(at, _)| {
        let before = output[..at].chars().next_back();
        let mut after = output[at + number.len()..].chars();
        let (next, then) = (after.next(), after.next());
        let decimal = next == Some('.') && then.is_some_and(|c| c.is_ascii_digit());
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !next.is_some_and(|c| c.is_ascii_digit())
            && !decimal
    })
}

/// The output files a page includes or links (paths as written, relative to the page).
fn outputs_of(markdown: &str) -> Vec<String> {
    let mut paths = vec![];
    for (open, close) in [("{{#include ", "}}"), ("](", ")")] {
        for part in markdown.split(open).skip(1) {
            let Some((target, _)) = part.split_once(close) else {
                continue;
            };
            let target = target.split([':', '#']).next().unwrap_or("");
            if target.starts_with("output/") {
                paths.push(target.to_string());
            }
        }
    }
    paths
}

/// The figures of `markdown` (the page `page`) found in none of `outputs`, as text.
fn unsupported(page: &str, markdown: &str, outputs: &str) -> Vec<String> {
    figures(&prose(markdown))
        .into_iter()
        .filter(|(written, number)| {
            let allowed = NOT_MEASURED
                .iter()
                .any(|(p, w, _)| *p == page && w.replace(' ', "") == written.replace(' ', ""));
            !allowed && !occurs(number, outputs)
        })
        .map(|(written, _)| format!("{page}: `{written}` is in no output file the page includes"))
        .collect()
}

#[test]
fn every_measured_figure_in_the_prose_is_in_an_included_output() {
    let book = repo_root().join("book/src");
    let mut problems = vec![];
    let mut checked = 0;
    for (page, markdown) in book_pages() {
        let name = page.display().to_string();
        let dir = book
            .join(&page)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let outputs: String = outputs_of(&markdown)
            .iter()
            .filter_map(|p| std::fs::read_to_string(dir.join(p)).ok())
            .collect();
        checked += figures(&prose(&markdown)).len();
        problems.extend(unsupported(&name, &markdown, &outputs));
    }
    assert!(
        problems.is_empty(),
        "figures typed by hand (quote the captured output, include it, or list a number \
         that is not a measurement in NOT_MEASURED with its reason):\n{}",
        problems.join("\n")
    );
    assert!(
        checked > 20,
        "only {checked} figures found: is the scan right?"
    );
}

#[test]
fn a_figure_missing_from_the_output_is_caught() {
    let page = "The copy took 2.9 ms, 3.60x faster; efficiency 0.93 at 66% load.\n\
                ```text\nignored 5 ms\n```\nIn code: `7 ms`. A 1024 x 1024 grid.\n\
                <img src=\"a.svg\" style=\"width: 50%;\">";
    let found: Vec<String> = figures(&prose(page)).into_iter().map(|f| f.0).collect();
    assert_eq!(found, ["2.9 ms", "3.60x", "0.93", "66%"]);
    let ranges = "from 7115 to 12282 µs, efficiencies 0.06-0.39, 22% to 89%, step 3 to 5";
    let found: Vec<String> = figures(ranges).into_iter().map(|f| f.0).collect();
    assert_eq!(found, ["7115", "12282 µs", "0.06", "0.39", "22%", "89%"]);
    let output = "copy 2.9 ms | speed-up 3.60x | efficiency 0.93 | load 66%";
    assert!(unsupported("x.md", page, output).is_empty());
    let drifted = "copy 2.95 ms | speed-up 13.60x | efficiency 0.93 | load 66%";
    assert!(occurs("66", drifted) && !occurs("2.9", drifted) && !occurs("0.9", drifted));
    assert!(!occurs("12", "beta 12.10 GB/s") && occurs("12", "12 GB/s, then 12."));
    let missing = unsupported("x.md", page, drifted);
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(missing[0].contains("`2.9 ms`"), "{missing:?}");
}

#[test]
fn included_and_linked_outputs_are_found() {
    let md = "{{#include output/a.txt}} and [the run](output/b.txt) and {{#include ../x.rs:k}}";
    assert_eq!(outputs_of(md), ["output/a.txt", "output/b.txt"]);
}
