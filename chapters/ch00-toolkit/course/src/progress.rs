//! A learner's progress, for the instructor: every `make check` writes
//! `target/workbook/progress.json` (who, where, when, and per chapter per exercise
//! passed / failing / not started); `make class DIR=folder` merges a folder of such files
//! into one table, rows learners, columns exercises, in the terminal and in
//! `target/workbook/class.html`.
//!
//! The learner's name is `WORKBOOK_LEARNER`, else `$USER`, else what `id -un` says.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One learner's progress file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub learner: String,
    pub host: String,
    /// When the last check ran, UTC, `2026-11-30T18:00:00Z`.
    pub time: String,
    /// Chapter id (`"03"`) -> exercise id (`"3.1"`) -> `passed`, `failing` or `not started`.
    pub chapters: BTreeMap<String, BTreeMap<String, String>>,
}

impl Progress {
    /// The learner of this machine: `WORKBOOK_LEARNER`, else `$USER`, else `id -un`.
    pub fn here() -> Progress {
        let id_un = || {
            let out = std::process::Command::new("id").arg("-un").output().ok()?;
            let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (!name.is_empty()).then_some(name)
        };
        let learner = std::env::var("WORKBOOK_LEARNER")
            .or_else(|_| std::env::var("USER"))
            .ok()
            .or_else(id_un)
            .unwrap_or_else(|| "unknown".into());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        Progress {
            learner,
            host,
            time: utc_now(),
            chapters: BTreeMap::new(),
        }
    }

    /// Loads `out_dir()/progress.json` and records `statuses` for chapter `nn` in it (the
    /// other chapters keep what an earlier check found); writes it back atomically.
    pub fn record(nn: &str, statuses: BTreeMap<String, String>) -> std::io::Result<()> {
        let path = workbook_settings::out::out_dir().join("progress.json");
        let old = std::fs::read_to_string(&path).ok();
        let old: Option<Progress> = old.and_then(|t| serde_json::from_str(&t).ok());
        let mut now = Progress::here();
        now.chapters = old.map(|o| o.chapters).unwrap_or_default();
        now.chapters.insert(nn.to_string(), statuses);
        let text = serde_json::to_string_pretty(&now).expect("progress is plain data");
        workbook_settings::out::write_file("progress.json", &(text + "\n")).map(|_| ())
    }
}

/// The time now, UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = (secs / 86400, secs % 86400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let (h, mi, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// The class: every progress file of a folder, by learner.
pub struct Class {
    pub learners: Vec<Progress>,
    /// Every exercise id any file names, in course order (`0.1` < `0.2` < `1.1` < `10.1`).
    pub exercises: Vec<String>,
    /// Files that could not be read, with why.
    pub unreadable: Vec<String>,
}

/// Reads every `*.json` file of `dir` (sorted by learner).
pub fn read_class(dir: &Path) -> Result<Class, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (mut learners, mut unreadable) = (vec![], vec![]);
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "json"))
    {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        match serde_json::from_str::<Progress>(&text) {
            Ok(p) => learners.push(p),
            Err(e) => unreadable.push(format!("{}: {e}", file.display())),
        }
    }
    learners.sort_by(|a, b| (&a.learner, &a.host).cmp(&(&b.learner, &b.host)));
    let mut exercises: Vec<String> = learners
        .iter()
        .flat_map(|p| p.chapters.values().flat_map(|c| c.keys().cloned()))
        .collect();
    exercises.sort_by_key(|id| {
        let (a, b) = id.split_once('.').unwrap_or((id, "0"));
        (a.parse::<u32>().unwrap_or(0), b.parse::<u32>().unwrap_or(0))
    });
    exercises.dedup();
    Ok(Class {
        learners,
        exercises,
        unreadable,
    })
}

impl Class {
    /// One learner's status of one exercise (`""` when their file does not name it).
    pub fn status<'a>(&self, learner: &'a Progress, id: &str) -> &'a str {
        let chapters = learner.chapters.values();
        let mut found = chapters.filter_map(|c| c.get(id));
        found.next().map(String::as_str).unwrap_or("")
    }

    /// Where a learner stands: the first exercise failing, else the first not started.
    pub fn stuck_at(&self, learner: &Progress) -> String {
        let first = |want: &str| {
            let mut ids = self.exercises.iter();
            ids.find(|id| self.status(learner, id) == want).cloned()
        };
        match (first("failing"), first("not started")) {
            (Some(f), _) => format!("stuck at ex {f} (failing)"),
            (None, Some(n)) => format!("next: ex {n}"),
            (None, None) => "all checked exercises pass".into(),
        }
    }

    /// The class as a terminal table: `+` passed, `x` failing, `.` not started, blank not
    /// checked yet; then one line per learner.
    pub fn text(&self) -> String {
        let mark = |s: &str| match s {
            "passed" => "+",
            "failing" => "x",
            "not started" => ".",
            _ => " ",
        };
        let width = self
            .learners
            .iter()
            .map(|p| p.learner.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let mut out = format!("{:width$} |", "learner");
        self.exercises
            .iter()
            .for_each(|id| out += &format!(" {id:>4}"));
        out += "\n";
        for p in &self.learners {
            out += &format!("{:width$} |", p.learner);
            for id in &self.exercises {
                out += &format!(" {:>4}", mark(self.status(p, id)));
            }
            out += &format!("   {}\n", self.stuck_at(p));
        }
        out += "\n+ passed, x failing, . not started, blank: not checked yet\n";
        out
    }

    /// The class as an HTML page: the same table, failing cells red, passed green.
    pub fn html(&self) -> String {
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let mut rows = String::new();
        for p in &self.learners {
            rows += &format!(
                "<tr><th title=\"{} at {}\">{}</th>",
                esc(&p.host),
                esc(&p.time),
                esc(&p.learner)
            );
            for id in &self.exercises {
                let s = self.status(p, id);
                let class = s.replace(' ', "-");
                rows += &format!(
                    "<td class=\"{class}\" title=\"ex {id}: {s}\">{}</td>",
                    esc(s)
                );
            }
            rows += &format!("<td>{}</td></tr>\n", esc(&self.stuck_at(p)));
        }
        let head: String = self
            .exercises
            .iter()
            .map(|id| format!("<th>{id}</th>"))
            .collect();
        format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Class progress</title>\n\
             <style>body{{font-family:sans-serif}} td,th{{border:1px solid #ccc;padding:2px 6px;\
             font-size:small}} .passed{{background:#c8f0c8}} .failing{{background:#f5b5b5}} \
             .not-started{{background:#eee}}</style></head><body>\n\
             <h1>Class progress</h1><p>{} learners; generated {}</p>\n\
             <table><tr><th>learner</th>{head}<th>where</th></tr>\n{rows}</table></body></html>\n",
            self.learners.len(),
            utc_now()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_now_is_a_plausible_timestamp() {
        let t = utc_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(
            t.starts_with("20") && t.ends_with('Z') && &t[10..11] == "T",
            "{t}"
        );
    }
}
