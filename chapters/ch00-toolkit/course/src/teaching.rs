//! The book's generated teaching pages: the schedules ([`crate::schedule`]) and the chapter
//! map ([`crate::course_map`]), from `course.toml`. `make teaching` writes them
//! (`workbook teaching`); the workspace test `course_minutes` fails when a committed page
//! differs from what [`generated_pages`] makes now.

use crate::course::Course;
use crate::{course_map, schedule};
use std::path::{Path, PathBuf};

/// Every generated page: (path relative to the repository root, its text).
pub fn generated_pages(course: &Course) -> Vec<(PathBuf, String)> {
    let dir = Path::new("book/src/teaching");
    vec![
        (
            dir.join("schedule-1-day.md"),
            schedule::schedule_page(course, 1),
        ),
        (
            dir.join("schedule-2-days.md"),
            schedule::schedule_page(course, 2),
        ),
        (dir.join("map.md"), course_map::map_page(course)),
    ]
}

/// Writes the generated pages under `root`; returns the paths written.
pub fn write_pages(root: &Path) -> Result<Vec<PathBuf>, String> {
    let course = Course::load(root)?;
    let mut written = vec![];
    for (path, text) in generated_pages(&course) {
        let full = root.join(&path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&full, text).map_err(|e| format!("{}: {e}", full.display()))?;
        written.push(path);
    }
    Ok(written)
}
