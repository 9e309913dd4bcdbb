//! Where the course's files go: `target/workbook/` of this workspace, or `WORKBOOK_OUT`.
//! Labs write their CSV and SVG files there (through `toolkit::report`), `make check`
//! its progress file, `make class` its HTML table.
//!
//! Run its tests: `cargo test -p workbook-settings`.

use std::path::PathBuf;

/// `target/workbook/` of this workspace (or `WORKBOOK_OUT`), created if missing.
pub fn out_dir() -> PathBuf {
    let dir = match std::env::var_os("WORKBOOK_OUT") {
        Some(d) => PathBuf::from(d),
        None => {
            // cargo marks the root of every target directory with CACHEDIR.TAG.
            let exe = std::env::current_exe().unwrap_or_default();
            let tagged = exe.ancestors().find(|p| p.join("CACHEDIR.TAG").is_file());
            // Else the folder above the profile's (`target/debug/deps/x` -> `target`).
            let profile = || {
                let mut up = exe.ancestors();
                up.find(|p| p.ends_with("debug") || p.ends_with("release"))
                    .and_then(|p| p.parent())
            };
            let target = tagged.or_else(profile).map(PathBuf::from);
            let dir = target
                .unwrap_or_else(|| PathBuf::from("target"))
                .join("workbook");
            // Shown from where the learner stands (`target/workbook/x.csv`), not from /.
            let here = std::env::current_dir().unwrap_or_default();
            dir.strip_prefix(&here).map(PathBuf::from).unwrap_or(dir)
        }
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    dir
}

/// Writes `contents` to `out_dir()/name` atomically (a temp file, then a rename), so a
/// reader never sees half a file. Returns the path.
pub fn write_file(name: &str, contents: &str) -> std::io::Result<PathBuf> {
    let path = out_dir().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}
