//! What `make check` prints for a failing exercise (its most specific failure whole, the
//! others one line each) and where it sends the learner next ("Next:": the exercise, the
//! file and the function to open, the book page).

use crate::check::{Exercise, Place, Status};
use crate::check_plan;
use crate::course::{Chapter, Course};
use std::path::Path;

/// A failing exercise: its most specific failing test with its message whole, then the
/// other failing tests one line each (passing tests are not named).
pub fn print_failure(e: &Exercise) {
    let (Status::Failing(why), Some((first, _))) = (&e.status, e.failed.first()) else {
        return;
    };
    let bare = |t: &str| t.rsplit("::").next().unwrap_or(t).to_string();
    println!("\nex {} is failing: {}\n{why}", e.id, bare(first));
    for (test, text) in e.failed.iter().skip(1) {
        let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let line: String = line.chars().take(160).collect();
        // A launch's line already starts with the test's name.
        match line.starts_with(&format!("`{}`", bare(test))) {
            true => println!("  also failing: {line}"),
            false => println!("  also failing: {}: {line}", bare(test)),
        }
    }
}

/// "fn a", "fn a or b", "fn a, b or c".
fn functions_phrase(fs: &[String]) -> String {
    match fs {
        [] => String::new(),
        [one] => format!("fn {one}"),
        [rest @ .., last] => format!("fn {} or {last}", rest.join(", ")),
    }
}

/// The "Next:" lines: the exercise, the file and function to open (for a failing exercise
/// the one its most specific failure points at), the book page.
pub fn print_next(
    root: &Path,
    package: &str,
    e: &Exercise,
    place: Option<&Place>,
    chapter: Option<&Chapter>,
) {
    let optional = match check_plan::is_optional(chapter, &e.id) {
        true => " (optional)",
        false => "",
    };
    println!("Next: ex {}{optional}: {}", e.id, e.task);
    if let Some(place) = place {
        let fs = crate::check_focus::blamed(chapter, e, &place.function);
        // Several: the panic passed through them, or the failing test checks them all.
        let checked = if fs.len() > 1 {
            ": the failing test runs each of them"
        } else {
            ""
        };
        println!(
            "  open {} ({}{checked})",
            place.file.display(),
            functions_phrase(&fs)
        );
    }
    let page = format!("book/src/{package}/exercises.md");
    if !root.join(&page).is_file() {
        return;
    }
    let course = Course::load(root).ok();
    let anchor = course
        .as_ref()
        .and_then(|c| c.exercise(&e.id))
        .map(|(_, ex)| format!("#{}", ex.anchor()))
        .unwrap_or_default();
    println!("  read book/build/{package}/exercises.html{anchor} (make book builds it)");
}
