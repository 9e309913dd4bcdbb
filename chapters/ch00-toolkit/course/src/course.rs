//! The course plan: `course.toml` at the repository root, the one source of every minute
//! the book states (exercises, reading, labs) and of how the chapters depend on each other.
//!
//! [`Course::load`] reads it; the sums ([`Chapter::total`], [`Course::total`]) and the lines
//! the book states ([`Chapter::time_line`], [`Exercise::heading`]) are computed here only.

use serde::Deserialize;
use std::path::Path;

/// A workshop day's shape.
#[derive(Clone, Debug, Deserialize)]
pub struct Workshop {
    /// The first session's start, `"HH:MM"`.
    pub start: String,
    /// Minutes of one session.
    pub session: u32,
    pub sessions_per_day: u32,
    /// Minutes of the break after each session.
    #[serde(rename = "break")]
    pub break_minutes: u32,
    /// The session (counted from 1) after which the lunch comes instead of a break.
    pub lunch_after: u32,
    /// Minutes of the lunch.
    pub lunch: u32,
}

/// One exercise, as `course.toml` states it.
#[derive(Clone, Debug, Deserialize)]
pub struct Exercise {
    /// `"1.2"`.
    pub id: String,
    pub title: String,
    pub minutes: u32,
    /// Core exercises are in every schedule; the others are optional.
    pub core: bool,
    /// The file the learner edits, relative to the repository root.
    pub file: String,
    /// The functions that hold the exercise's stubs, in the order of the file.
    pub functions: Vec<String>,
}

/// One chapter of the course.
#[derive(Clone, Debug, Deserialize)]
pub struct Chapter {
    /// `"03"`.
    pub id: String,
    pub title: String,
    /// Minutes of reading per book page (file name in the chapter's book folder), in the
    /// order of the book.
    pub reading: toml::Table,
    /// Minutes of the chapter's labs.
    pub labs: u32,
    /// The chapters (ids) this one builds on.
    pub depends: Vec<String>,
    /// The exercises, in the order the book teaches them.
    pub exercises: Vec<Exercise>,
    /// The chapter's tests not named after one exercise, each with the exercises it waits
    /// for (`[]`: none, it checks given code); see [`crate::check_plan`].
    #[serde(default)]
    pub waits_for: std::collections::BTreeMap<String, Vec<String>>,
    /// `[chapter.checks]`: each exercise test with the functions it checks (`check_focus`).
    #[serde(default)]
    pub checks: toml::Table,
    /// Its crate, labs and benches: the registry ([`crate::registry`]).
    #[serde(default, rename = "crate")]
    pub code: crate::registry::Crate,
}

/// The whole plan.
#[derive(Clone, Debug, Deserialize)]
pub struct Course {
    pub workshop: Workshop,
    #[serde(rename = "chapter")]
    pub chapters: Vec<Chapter>,
}

impl Course {
    /// Reads and checks `course.toml` under `root`; the error names the file and the fix.
    pub fn load(root: &Path) -> Result<Course, String> {
        let path = root.join("course.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: {e} (run from the repository root)", path.display()))?;
        Course::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses the text of a `course.toml` and checks that its numbers are usable.
    pub fn parse(text: &str) -> Result<Course, String> {
        let course: Course = toml::from_str(text).map_err(|e| e.to_string())?;
        for c in &course.chapters {
            for (page, minutes) in &c.reading {
                if minutes.as_integer().is_none_or(|m| m < 0) {
                    return Err(format!(
                        "chapter {}: reading of {page} is not minutes",
                        c.id
                    ));
                }
            }
            crate::check_focus::lists_of_functions(c)?;
            for d in &c.depends {
                if !course.chapters.iter().any(|o| &o.id == d && o.id < c.id) {
                    return Err(format!(
                        "chapter {} depends on {d}, no earlier chapter",
                        c.id
                    ));
                }
            }
        }
        Ok(course)
    }

    /// The chapter with id `nn` (`"03"`).
    pub fn chapter(&self, nn: &str) -> Option<&Chapter> {
        self.chapters.iter().find(|c| c.id == nn)
    }

    /// The exercise with id `id` (`"3.1"`), with its chapter.
    pub fn exercise(&self, id: &str) -> Option<(&Chapter, &Exercise)> {
        let mut all = self
            .chapters
            .iter()
            .flat_map(|c| c.exercises.iter().map(move |e| (c, e)));
        all.find(|(_, e)| e.id == id)
    }

    /// Minutes of the whole course, optional exercises included.
    pub fn total(&self) -> u32 {
        self.chapters.iter().map(Chapter::total).sum()
    }

    /// Minutes of the course's core: reading, labs and core exercises.
    pub fn core_total(&self) -> u32 {
        self.chapters.iter().map(Chapter::core_total).sum()
    }
}

impl Chapter {
    /// Minutes of reading of one page, if the plan lists it.
    pub fn reading_of(&self, page: &str) -> Option<u32> {
        self.reading.get(page)?.as_integer().map(|m| m as u32)
    }

    /// Minutes of reading, all pages.
    pub fn reading_total(&self) -> u32 {
        let pages = self.reading.values().filter_map(|m| m.as_integer());
        pages.map(|m| m as u32).sum()
    }

    /// Minutes of all exercises.
    pub fn exercise_total(&self) -> u32 {
        self.exercises.iter().map(|e| e.minutes).sum()
    }

    /// Minutes of the core exercises.
    pub fn core_exercise_total(&self) -> u32 {
        let core = self.exercises.iter().filter(|e| e.core);
        core.map(|e| e.minutes).sum()
    }

    /// Reading, labs and every exercise.
    pub fn total(&self) -> u32 {
        self.reading_total() + self.labs + self.exercise_total()
    }

    /// Reading, labs and the core exercises.
    pub fn core_total(&self) -> u32 {
        self.reading_total() + self.labs + self.core_exercise_total()
    }

    /// The number of the chapter without its leading zero: `"3"`.
    pub fn number(&self) -> String {
        self.id.trim_start_matches('0').to_string().max("0".into())
    }

    /// The line under the title of the chapter's first page, e.g.
    /// `*Time: about 1 h 35 (reading 45 min, labs 10 min, exercises 50 min: 40 core, 10
    /// optional). Builds on chapter 0.*`
    pub fn time_line(&self) -> String {
        let (core, all) = (self.core_exercise_total(), self.exercise_total());
        let builds_on = match self.depends.len() {
            0 => "Builds on nothing: start here.".to_string(),
            1 => format!("Builds on chapter {}.", number_of(&self.depends[0])),
            _ => {
                let n: Vec<String> = self.depends.iter().map(|d| number_of(d)).collect();
                let (last, rest) = n.split_last().expect("two or more");
                format!("Builds on chapters {} and {last}.", rest.join(", "))
            }
        };
        format!(
            "*Time: about {} (reading {} min, labs {} min, exercises {} min: {} core, {} \
             optional). {builds_on}*",
            clock_span(self.total()),
            self.reading_total(),
            self.labs,
            all,
            core,
            all - core
        )
    }
}

impl Exercise {
    /// The exercise's heading on its chapter's exercises page:
    /// `## Ex 1.2: a shift that cannot deadlock (15 minutes, core)`.
    pub fn heading(&self) -> String {
        let kind = if self.core { "core" } else { "optional" };
        format!(
            "## Ex {}: {} ({} minutes, {kind})",
            self.id, self.title, self.minutes
        )
    }

    /// The line that opens the exercise's section: the file and the functions to edit.
    pub fn edit_line(&self) -> String {
        let names: Vec<String> = self.functions.iter().map(|f| format!("`{f}`")).collect();
        let word = if names.len() == 1 {
            "function"
        } else {
            "functions"
        };
        format!("**Edit** `{}`, {word} {}.", self.file, names.join(", "))
    }

    /// The anchor mdBook gives the exercise's heading (`ex-12-a-shift-that-...`).
    pub fn anchor(&self) -> String {
        let text = self.heading();
        let text = text.trim_start_matches("## ").to_lowercase();
        let kept = text.chars().filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '_' | '-' => Some(c),
            ' ' => Some('-'),
            _ => None,
        });
        kept.collect()
    }
}

/// `"03"` -> `"3"`.
fn number_of(id: &str) -> String {
    let n = id.trim_start_matches('0');
    if n.is_empty() { "0" } else { n }.to_string()
}

/// Minutes as a span: `45 min`, `1 h`, `1 h 35`.
pub fn clock_span(minutes: u32) -> String {
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
        [workshop]
        start = "09:00"
        session = 90
        sessions_per_day = 4
        break = 15
        lunch_after = 2
        lunch = 60
        [[chapter]]
        id = "00"
        title = "Zero"
        reading = { "index.md" = 15, "harness.md" = 20 }
        labs = 5
        depends = []
        exercises = [
          { id = "0.1", title = "split", minutes = 10, core = true, file = "a.rs", functions = ["f"] },
          { id = "0.2", title = "gather", minutes = 25, core = false, file = "a.rs", functions = ["g", "h"] },
        ]
    "#;

    #[test]
    fn sums_and_lines_come_from_the_numbers() {
        let course = Course::parse(PLAN).unwrap();
        let c = &course.chapters[0];
        assert_eq!((c.reading_total(), c.total(), c.core_total()), (35, 75, 50));
        assert_eq!(c.reading_of("harness.md"), Some(20));
        assert_eq!(
            c.time_line(),
            "*Time: about 1 h 15 (reading 35 min, labs 5 min, exercises 35 min: 10 core, 25 \
             optional). Builds on nothing: start here.*"
        );
        let e = &c.exercises[1];
        assert_eq!(e.heading(), "## Ex 0.2: gather (25 minutes, optional)");
        assert_eq!(e.anchor(), "ex-02-gather-25-minutes-optional");
        assert_eq!(e.edit_line(), "**Edit** `a.rs`, functions `g`, `h`.");
        let spans = (clock_span(45), clock_span(60), clock_span(125));
        assert_eq!(spans, ("45 min".into(), "1 h".into(), "2 h 05".into()));
    }

    #[test]
    fn a_dependency_on_a_later_chapter_is_refused() {
        let plan = PLAN.replace("depends = []", "depends = [\"04\"]");
        let err = Course::parse(&plan).unwrap_err();
        assert!(err.contains("depends on 04"), "{err}");
    }
}
