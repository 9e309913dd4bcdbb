//! Every relative link and `#anchor` in the built book resolves: the page exists in the
//! build, and the anchor is an `id` on that page. mdBook itself only warns about a missing
//! page and says nothing about a missing anchor.
//!
//! The test builds the book (with the `mdbook` that `make setup` installs) into its own
//! folder under `target/`, then reads every HTML page. Run:
//! `cargo test -p workbook-tests --test book_links` (it takes a few seconds). `make test`
//! runs it with the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use workbook_tests::{files_under, repo_root};

/// Pages mdBook generates with links of its own making (the print view rewrites every
/// link to an in-page anchor; 404 and toc use the site root): not the book's links.
const GENERATED: [&str; 3] = ["print.html", "404.html", "toc.html"];

/// `href="..."` and `src="..."` targets and `id="..."` values of one HTML page.
fn links_and_ids(html: &str) -> (Vec<String>, BTreeSet<String>) {
    let attr = |name: &str| -> Vec<String> {
        let key = format!(" {name}=\"");
        html.split(key.as_str())
            .skip(1)
            .filter_map(|rest| rest.split_once('"').map(|(v, _)| v.replace("&amp;", "&")))
            .collect()
    };
    let mut links = attr("href");
    links.extend(attr("src"));
    (links, attr("id").into_iter().collect())
}

/// Whether a link leaves the book (a scheme, or protocol-relative): not checked here.
fn is_external(link: &str) -> bool {
    link.starts_with("//")
        || link
            .split_once(':')
            .is_some_and(|(scheme, _)| !scheme.contains('/') && !scheme.contains('#'))
}

/// `base/link` with `.` and `..` resolved, without touching the file system.
fn resolve(base: &Path, link: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in base.join(link).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The broken links among `pages` (path relative to the build root -> HTML): a target
/// page that is not in the build, or an anchor that is not an id on its page.
fn broken_links(pages: &BTreeMap<PathBuf, String>, assets: &BTreeSet<PathBuf>) -> Vec<String> {
    let ids: BTreeMap<&PathBuf, BTreeSet<String>> = pages
        .iter()
        .map(|(page, html)| (page, links_and_ids(html).1))
        .collect();
    let mut broken = vec![];
    for (page, html) in pages {
        let here = page.parent().unwrap_or(Path::new(""));
        for link in links_and_ids(html).0 {
            if link.is_empty() || is_external(&link) {
                continue;
            }
            let (path, anchor) = match link.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (link.as_str(), None),
            };
            let path = path.split('?').next().unwrap_or("");
            let target = if path.is_empty() {
                page.clone()
            } else {
                resolve(here, &path.replace("%20", " "))
            };
            let target = if target.extension().is_none() && !assets.contains(&target) {
                target.join("index.html")
            } else {
                target
            };
            let Some(target_ids) = ids.get(&target) else {
                if !assets.contains(&target) {
                    broken.push(format!(
                        "{}: links {link}, but {} is not in the build",
                        page.display(),
                        target.display()
                    ));
                }
                continue;
            };
            if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                if !target_ids.contains(anchor) {
                    broken.push(format!(
                        "{}: links {link}, but {} has no heading or id `{anchor}`",
                        page.display(),
                        target.display()
                    ));
                }
            }
        }
    }
    broken
}

/// The mdbook binary: where `cargo install` puts it (`$CARGO_HOME/bin`, by default
/// `~/.cargo/bin`), else on PATH.
fn mdbook() -> PathBuf {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let installed = cargo_home.unwrap_or_default().join("bin/mdbook");
    if installed.is_file() {
        installed
    } else {
        PathBuf::from("mdbook")
    }
}

#[test]
fn every_link_and_anchor_in_the_built_book_resolves() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("book-links");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(mdbook())
        .arg("build")
        .arg(repo_root().join("book"))
        .arg("--dest-dir")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run mdbook ({e}): run `make setup`, which installs it"));
    assert!(
        status.success(),
        "mdbook build book failed: see its messages above"
    );

    let files = files_under(&out, &|_| true);
    let relative = |p: &PathBuf| p.strip_prefix(&out).unwrap().to_path_buf();
    let assets: BTreeSet<PathBuf> = files.iter().map(relative).collect();
    let pages: BTreeMap<PathBuf, String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .filter(|p| !GENERATED.contains(&relative(p).to_str().unwrap_or("")))
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    assert!(
        pages.len() > 20,
        "only {} pages built: is the walk right?",
        pages.len()
    );

    let broken = broken_links(&pages, &assets);
    assert!(
        broken.is_empty(),
        "{} broken link(s) in the book (fix the link, or the heading it points at):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_checker_finds_a_missing_page_and_a_missing_anchor() {
    let page = |html: &str| html.to_string();
    let pages = BTreeMap::from([
        (
            PathBuf::from("ch01/index.html"),
            page(
                r##"<h2 id="fix-1">Fix 1</h2>
                <a href="../ch02/a.html#rounds">ok</a> <a href="#fix-1">ok</a>
                <a href="https://example.org/x">external</a> <img src="img/f.svg">
                <a href="../ch02/a.html#gone">anchor</a> <a href="missing.html">page</a>"##,
            ),
        ),
        (
            PathBuf::from("ch02/a.html"),
            page(r#"<h2 id="rounds">R</h2>"#),
        ),
    ]);
    let assets = BTreeSet::from([PathBuf::from("ch01/img/f.svg")]);
    let broken = broken_links(&pages, &assets);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken[0].contains("has no heading or id `gone`"),
        "{broken:?}"
    );
    assert!(
        broken[1].contains("ch01/missing.html is not in the build"),
        "{broken:?}"
    );
}
