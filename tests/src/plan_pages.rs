//! What the course plan (`course.toml`) and the book's pages are compared by: a
//! chapter's book folder, an exercises page's sections, the minutes a page states and
//! those the plan allows (`tests/course_minutes.rs`).

use course::course::Chapter;
use std::collections::BTreeSet;

/// The book folder of a chapter: `ch03-ring-allreduce`.
pub fn book_folder(c: &Chapter) -> String {
    let file = &c.exercises[0].file;
    file.split('/').nth(1).unwrap().to_string()
}

/// The `## Ex` sections of an exercises page: (heading, body up to the next `## `).
pub fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.starts_with("## Ex");
            if inside {
                out.push((line.to_string(), String::new()));
            }
        } else if inside {
            let body = &mut out.last_mut().unwrap().1;
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// The figures of minutes a chapter's pages may state: the plan's.
pub fn known_minutes(c: &Chapter) -> BTreeSet<u32> {
    let mut known: BTreeSet<u32> = c.exercises.iter().map(|e| e.minutes).collect();
    known.extend(
        c.reading
            .values()
            .filter_map(|m| m.as_integer())
            .map(|m| m as u32),
    );
    known.extend([
        c.labs,
        c.reading_total(),
        c.exercise_total(),
        c.core_exercise_total(),
        c.exercise_total() - c.core_exercise_total(),
        c.total(),
        c.core_total(),
    ]);
    known
}

/// Every "N minutes", "N min", "N h" or "N hours" of a line, in minutes.
pub fn stated_minutes(line: &str) -> Vec<u32> {
    let words: Vec<&str> = line
        .split(|ch: char| ch.is_whitespace() || ",.;:()*".contains(ch))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = vec![];
    for (i, w) in words.iter().enumerate() {
        let Ok(n) = w.parse::<u32>() else { continue };
        let next = words.get(i + 1).copied().unwrap_or("");
        match next {
            "minutes" | "minute" | "min" => out.push(n),
            "h" | "hours" | "hour" => {
                let extra = words.get(i + 2).and_then(|m| m.parse::<u32>().ok());
                out.push(n * 60 + extra.filter(|m| *m < 60).unwrap_or(0));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minutes_reader_finds_every_form() {
        assert_eq!(
            stated_minutes("about 1 h 30 of exercises, then 15 minutes"),
            [90, 15]
        );
        assert_eq!(
            stated_minutes("(10 min) and 2 hours; min(r, extra)"),
            [10, 120]
        );
    }
}
