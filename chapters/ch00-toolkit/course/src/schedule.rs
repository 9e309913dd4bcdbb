//! Workshop schedules from the course plan (`course.toml`, [`crate::course`]): sessions
//! with clock times, breaks, core and optional exercises, and where to cut when behind.
//!
//! `make teaching` writes them to `book/src/teaching/schedule-1-day.md` and
//! `schedule-2-days.md`; a workspace test fails when those differ from [`schedule_page`].
//!
//! The packing is plain: the course's core items (each reading page as a talk, the labs,
//! each core exercise) go in book order into sessions; an item that does not fit the rest
//! of a session opens the next one; what does not fit the days is self-study.

use crate::course::{clock_span, Chapter, Course};
use std::fmt::Write;

/// One thing done in a session.
#[derive(Clone, Debug)]
pub struct Item {
    /// The chapter's id.
    pub chapter: String,
    /// What the room does, as the schedule shows it.
    pub what: String,
    pub minutes: u32,
    /// The exercise's id, for exercises.
    pub exercise: Option<String>,
}

/// One session and what it holds.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub day: u32,
    /// Minutes after midnight.
    pub start: u32,
    pub items: Vec<Item>,
}

/// A schedule over some days.
pub struct Plan {
    pub sessions: Vec<Session>,
    /// The core items that did not fit.
    pub left: Vec<Item>,
}

/// The core items of a chapter in book order: its talks, its labs, its core exercises.
pub fn core_items(c: &Chapter) -> Vec<Item> {
    let n = c.number();
    let mut items = vec![];
    for (page, minutes) in &c.reading {
        items.push(Item {
            chapter: c.id.clone(),
            what: format!("Chapter {n} talk: `{}`", page_path(c, page)),
            minutes: minutes.as_integer().unwrap_or(0) as u32,
            exercise: None,
        });
    }
    if c.labs > 0 {
        items.push(Item {
            chapter: c.id.clone(),
            what: format!("Chapter {n} labs, run together: `make run CH={}`", c.id),
            minutes: c.labs,
            exercise: None,
        });
    }
    for e in c.exercises.iter().filter(|e| e.core) {
        items.push(Item {
            chapter: c.id.clone(),
            what: format!("Ex {}: {}", e.id, e.title),
            minutes: e.minutes,
            exercise: Some(e.id.clone()),
        });
    }
    items
}

/// The book page of a chapter's reading entry, relative to `book/src`.
fn page_path(c: &Chapter, page: &str) -> String {
    format!("ch{}/{page}", chapter_slug(c))
}

/// `"03-ring-allreduce"` for chapter 03, from its first exercise's file.
fn chapter_slug(c: &Chapter) -> String {
    let file = c.exercises.first().map(|e| e.file.as_str()).unwrap_or("");
    let folder = file.split('/').nth(1).unwrap_or("");
    folder.trim_start_matches("ch").to_string()
}

/// Packs the course's core items into `days` days of the workshop's sessions.
pub fn plan(course: &Course, days: u32) -> Plan {
    let w = &course.workshop;
    let first = parse_clock(&w.start);
    let mut sessions: Vec<Session> = vec![];
    for day in 1..=days {
        let mut start = first;
        for s in 1..=w.sessions_per_day {
            sessions.push(Session {
                day,
                start,
                items: vec![],
            });
            start += w.session
                + if s == w.lunch_after {
                    w.lunch
                } else {
                    w.break_minutes
                };
        }
    }
    let (mut at, mut used, mut left) = (0usize, 0u32, vec![]);
    for item in course.chapters.iter().flat_map(core_items) {
        if at < sessions.len() && used + item.minutes > w.session && used > 0 {
            (at, used) = (at + 1, 0);
        }
        if at >= sessions.len() || !left.is_empty() {
            left.push(item);
            continue;
        }
        used += item.minutes;
        sessions[at].items.push(item);
    }
    Plan { sessions, left }
}

/// "09:00" -> minutes after midnight.
fn parse_clock(text: &str) -> u32 {
    let (h, m) = text.split_once(':').unwrap_or(("9", "0"));
    h.trim().parse::<u32>().unwrap_or(9) * 60 + m.trim().parse::<u32>().unwrap_or(0)
}

/// Minutes after midnight -> "09:00".
fn clock(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The optional exercises of the chapters whose last core item is in `session`.
fn optional_in(course: &Course, plan: &Plan, index: usize) -> Vec<String> {
    let ends_here = |c: &Chapter| {
        let last = plan
            .sessions
            .iter()
            .rposition(|s| s.items.iter().any(|i| i.chapter == c.id));
        last == Some(index) && !plan.left.iter().any(|i| i.chapter == c.id)
    };
    let chapters = course.chapters.iter().filter(|c| ends_here(c));
    let optional = chapters.flat_map(|c| c.exercises.iter().filter(|e| !e.core));
    optional
        .map(|e| format!("ex {} ({} min)", e.id, e.minutes))
        .collect()
}

/// The schedule page for `days` days, in Markdown.
pub fn schedule_page(course: &Course, days: u32) -> String {
    let w = &course.workshop;
    let plan = plan(course, days);
    let mut out = String::new();
    let title = if days == 1 {
        "One day".to_string()
    } else {
        format!("{days} days")
    };
    let _ = writeln!(out, "# The course in {}\n", title.to_lowercase());
    let _ = writeln!(
        out,
        "*Generated by `make teaching` from `course.toml`; edit that file, not this page.*\n"
    );
    let scheduled: u32 = plan
        .sessions
        .iter()
        .flat_map(|s| &s.items)
        .map(|i| i.minutes)
        .sum();
    let _ = writeln!(
        out,
        "{title} of {} sessions of {} minutes, a {}-minute break after each and a {}-minute \
         lunch after session {}. The talks are the chapter's reading pages, presented; the \
         labs are run by everyone at once. In the sessions: {} of the course's core ({} in \
         all; {} with every optional exercise).\n",
        w.sessions_per_day,
        w.session,
        w.break_minutes,
        w.lunch,
        w.lunch_after,
        clock_span(scheduled),
        clock_span(course.core_total()),
        clock_span(course.total()),
    );
    for (index, s) in plan.sessions.iter().enumerate() {
        let n = index as u32 % w.sessions_per_day + 1;
        if n == 1 {
            let _ = writeln!(out, "## Day {}\n", s.day);
        }
        let end = s.start + w.session;
        let _ = writeln!(out, "### Session {n}, {}-{}\n", clock(s.start), clock(end));
        if s.items.is_empty() {
            let _ = writeln!(out, "Free: catch up on the optional exercises.\n");
        } else {
            let _ = writeln!(out, "| time | what | minutes |\n|---|---|---|");
            let mut at = s.start;
            for i in &s.items {
                let _ = writeln!(out, "| {} | {} | {} |", clock(at), i.what, i.minutes);
                at += i.minutes;
            }
            let slack = end.saturating_sub(at);
            let _ = writeln!(out, "\nSlack: {slack} min.");
            let optional = optional_in(course, &plan, index);
            if !optional.is_empty() {
                let _ = writeln!(out, "Optional, for those ahead: {}.", optional.join(", "));
            }
            let cut = s.items.iter().rev().find(|i| i.exercise.is_some());
            if let Some(cut) = cut {
                let _ = writeln!(
                    out,
                    "Behind? Make {} homework ({} min): the next session starts on time.",
                    cut.what.split(':').next().unwrap_or("").to_lowercase(),
                    cut.minutes
                );
            }
            let _ = writeln!(out);
        }
        let pause = if n == w.lunch_after {
            ("Lunch", w.lunch)
        } else {
            ("Break", w.break_minutes)
        };
        if n < w.sessions_per_day {
            let _ = writeln!(
                out,
                "*{}-{}: {}*\n",
                clock(end),
                clock(end + pause.1),
                pause.0
            );
        }
    }
    let _ = writeln!(out, "## After the workshop\n");
    if plan.left.is_empty() {
        let _ = writeln!(
            out,
            "Every core item is in the sessions. The optional exercises are \
                               the homework; `make check` shows who did which.\n"
        );
    } else {
        let _ = writeln!(
            out,
            "These core items did not fit; they are self-study, with the \
                               optional exercises:\n"
        );
        for c in &course.chapters {
            let left: Vec<&Item> = plan.left.iter().filter(|i| i.chapter == c.id).collect();
            if left.is_empty() {
                continue;
            }
            let minutes: u32 = left.iter().map(|i| i.minutes).sum();
            let whole = left.len() == core_items(c).len();
            let what = if whole {
                "all of it".to_string()
            } else {
                let ids = left.iter().filter_map(|i| i.exercise.as_deref());
                let ids: Vec<String> = ids.map(|id| format!("ex {id}")).collect();
                ids.join(", ")
            };
            let _ = writeln!(
                out,
                "- Chapter {}, {}: {what} ({} of core)",
                c.number(),
                c.title,
                clock_span(minutes)
            );
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "## Where to cut when behind\n");
    let _ = writeln!(
        out,
        "1. Optional exercises are never done in the room: they are for those ahead.\n\
         2. A session that runs late loses its last core exercise (named under each session), \
         which becomes homework; the next session starts on time.\n\
         3. A talk shrinks to its figures and the lab: the page stays in the book.\n\
         4. Never cut the first exercise of a chapter: the next chapter's talk assumes it."
    );
    out
}
