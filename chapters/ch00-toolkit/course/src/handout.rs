//! Solutions in a class: `make handout DEST=dir` writes the course without `solutions/` and
//! without the planted mistakes (which live there); `make release CH=NN DEST=dir` adds one
//! chapter's solutions to a handout when the instructor decides.
//!
//! What changes in the copy, so that it still builds and `make check` works:
//! - `solutions/` is left out;
//! - each chapter's `[[test]]` tables that point into `solutions/` (its planted mistakes)
//!   are left out of its `Cargo.toml`; the `solution` feature stays declared, so the
//!   workspace resolves, but building with it needs the chapter released;
//! - the book's folded solution blocks (`{{#include ../../../solutions/...}}`) become a
//!   line saying the instructor releases them;
//! - the copy is a fresh git repository with one commit (the checker reads the committed
//!   stubs to name an exercise whose `todo!` is gone).
//!
//! [`release`] puts back one chapter's `solutions/chNN-*`, its `Cargo.toml` and its book
//! pages, as in the course.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files of the course, relative to `root`: tracked and untracked-but-not-ignored.
fn course_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let out = Command::new("git")
        .current_dir(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        // Not a git checkout (a downloaded archive, a copy): every file but the build
        // outputs and downloads that .gitignore names.
        let mut files = vec![];
        walk(root, Path::new(""), &mut files)?;
        return Ok(files);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let files = text
        .split('\0')
        .filter(|f| !f.is_empty())
        .map(PathBuf::from);
    Ok(files.filter(|f| root.join(f).is_file()).collect())
}

/// Folders never handed out: build outputs, downloads, the built book.
const NOT_COURSE: [&str; 6] = ["target", ".git", "libtorch", ".cache", "book/build", ".whl"];

/// The plain files under `root/rel` (links skipped), as paths relative to `root`.
fn walk(root: &Path, rel: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let dir = root.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {dir:?}: {e}"))?;
    for entry in entries.flatten() {
        let path = rel.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| format!("{path:?}: {e}"))?;
        let skipped =
            NOT_COURSE.iter().any(|n| path == Path::new(n)) || entry.file_name() == "target";
        if kind.is_dir() && !skipped {
            walk(root, &path, files)?;
        } else if kind.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

/// A chapter's `Cargo.toml` without the `[[test]]` tables whose path is in `solutions/`
/// (and without the comment block right above such a table).
pub fn manifest_without_solutions(text: &str) -> String {
    let mut out: Vec<&str> = vec![];
    let parts: Vec<&str> = text.split("\n[").collect();
    for part in &parts {
        let is_planted = part.starts_with("[test]]") && part.contains("solutions/");
        if is_planted {
            // Drop the comment lines that introduced it at the end of the previous part.
            if let Some(prev) = out.last_mut() {
                let kept = prev.trim_end_matches('\n');
                let lines: Vec<&str> = kept.lines().collect();
                let keep = lines.iter().rposition(|l| !l.starts_with('#'));
                let cut = keep.map(|k| k + 1).unwrap_or(0);
                let end = lines[..cut].iter().map(|l| l.len() + 1).sum::<usize>();
                *prev = &prev[..end.min(prev.len())];
            }
            continue;
        }
        out.push(part);
    }
    let mut joined = out[0].to_string();
    for part in &out[1..] {
        joined.push_str("\n[");
        joined.push_str(part);
    }
    joined.trim_end().to_string() + "\n"
}

/// A book page with each fenced block that includes from `solutions/` replaced by a line
/// that says how the instructor releases it.
pub fn page_without_solutions(text: &str, nn: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start().starts_with("```");
        let block_end = fence
            .then(|| (i + 1..lines.len()).find(|&j| lines[j].trim_start().starts_with("```")))
            .flatten();
        if let Some(end) = block_end {
            let body = &lines[i + 1..end];
            if body
                .iter()
                .any(|l| l.contains("{{#include") && l.contains("solutions/"))
            {
                out.push_str(&format!(
                    "*In this copy of the course the instructor releases this with `make \
                     release CH={nn}`.*\n"
                ));
                i = end + 1;
                continue;
            }
        }
        if !(lines[i].contains("{{#include") && lines[i].contains("solutions/")) {
            out.push_str(lines[i]);
            out.push('\n');
        }
        i += 1;
    }
    out
}

/// The chapter number of a path under `chapters/chNN-*` or `book/src/chNN-*`.
fn chapter_of(path: &Path) -> Option<String> {
    let s = path.to_string_lossy();
    let rest = s
        .strip_prefix("chapters/ch")
        .or(s.strip_prefix("book/src/ch"))?;
    let nn = rest.get(..2)?;
    nn.chars()
        .all(|c| c.is_ascii_digit())
        .then(|| nn.to_string())
}

/// Writes the handout of the course at `root` into `dest` (which must not exist or be
/// empty). Returns how many files it wrote.
pub fn handout(root: &Path, dest: &Path) -> Result<usize, String> {
    let busy = std::fs::read_dir(dest)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if busy {
        return Err(format!(
            "{} is not empty: choose a new folder",
            dest.display()
        ));
    }
    let mut written = 0;
    for file in course_files(root)? {
        if file.starts_with("solutions") {
            continue;
        }
        let text =
            std::fs::read(root.join(&file)).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let text = match (chapter_of(&file), name) {
            (Some(_), "Cargo.toml") => {
                manifest_without_solutions(&String::from_utf8_lossy(&text)).into_bytes()
            }
            (Some(nn), n) if n.ends_with(".md") => {
                page_without_solutions(&String::from_utf8_lossy(&text), &nn).into_bytes()
            }
            _ => text,
        };
        write(&dest.join(&file), &text)?;
        written += 1;
    }
    commit(dest, "The course, as handed out (no solutions)");
    Ok(written)
}

/// Adds chapter `nn`'s solutions to the handout in `dest`, with its `Cargo.toml` and book
/// pages as in the course. Returns how many files it wrote.
pub fn release(root: &Path, nn: &str, dest: &Path) -> Result<usize, String> {
    if !dest.join("chapters").is_dir() {
        return Err(format!("{} is no handout (no chapters/)", dest.display()));
    }
    let nn = format!("{nn:0>2}");
    let mut written = 0;
    for file in course_files(root)? {
        let s = file.to_string_lossy();
        let of_chapter = s.starts_with(&format!("solutions/ch{nn}-"))
            || (chapter_of(&file).as_deref() == Some(nn.as_str())
                && (s.ends_with("Cargo.toml") || s.starts_with("book/src/")));
        if of_chapter {
            let text =
                std::fs::read(root.join(&file)).map_err(|e| format!("{}: {e}", file.display()))?;
            write(&dest.join(&file), &text)?;
            written += 1;
        }
    }
    if written == 0 {
        return Err(format!("no chapter {nn} in {}", root.display()));
    }
    commit(dest, &format!("Chapter {nn}'s solutions released"));
    Ok(written)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Commits everything in `dir` (a new repository if needed); best effort: a copy without
/// git still works, the checker then names exercises from the files as they are.
fn commit(dir: &Path, message: &str) {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=workbook",
                "-c",
                "user.email=workbook@localhost",
            ])
            .args(args)
            .output()
    };
    if !dir.join(".git").exists() {
        let _ = git(&["init", "-q"]);
    }
    let _ = git(&["add", "-A"]);
    let _ = git(&["commit", "-q", "-m", message]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planted_tests_leave_the_manifest_and_the_rest_stays() {
        let toml = "[package]\nname = \"x\"\n\n[features]\nsolution = []\n\n# The planted\n# mistakes.\n[[test]]\nname = \"planted_mistakes\"\npath = \"../../solutions/x/planted_mistakes.rs\"\nrequired-features = [\"solution\"]\n\n[[test]]\nname = \"mine\"\npath = \"tests/mine.rs\"\n";
        let out = manifest_without_solutions(toml);
        assert!(
            !out.contains("solutions/") && !out.contains("# The planted"),
            "{out}"
        );
        assert!(
            out.contains("solution = []") && out.contains("tests/mine.rs"),
            "{out}"
        );
    }

    #[test]
    fn solution_blocks_leave_the_page_and_the_stubs_stay() {
        let page = "## Ex 1.1\n```rust,ignore\n{{#include ../../../chapters/x.rs:a}}\n```\n<details>\n\n```rust,ignore\n{{#include ../../../solutions/x.rs:a}}\n```\n\n</details>\n";
        let out = page_without_solutions(page, "01");
        assert!(!out.contains("solutions/"), "{out}");
        assert!(
            out.contains("chapters/x.rs:a") && out.contains("make release CH=01"),
            "{out}"
        );
    }
}
