//! Where did a panic come from, in the learner's terms?
//!
//! A panic raised inside a library (the `mpi` crate's assertion when `gather_into_root`
//! is called on a rank that is not the root, say) points into a file the learner never
//! wrote. [`place`] then also names the first line of the workspace that called it, found
//! in a backtrace taken on the spot.

use std::panic::Location;

/// `file:line`, and for a panic inside a dependency `file:line (called from your
/// chapters/...:line)`.
pub fn place(location: Option<&Location<'_>>) -> String {
    let Some(loc) = location else {
        return "an unknown place".to_string();
    };
    let here = format!("{}:{}", short(loc.file()), loc.line());
    if !is_library(loc.file()) {
        return here;
    }
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    match caller_in_workspace(&trace) {
        Some(caller) => format!("{here}, called from {caller}"),
        None => here,
    }
}

/// A known library panic, explained: rsmpi asserts that a `*_root` collective runs on
/// the root (`gather_into_root` on every rank is a classic mistake).
pub fn hint(location: Option<&Location<'_>>, message: &str) -> Option<&'static str> {
    let file = location?.file();
    let rsmpi_collective = file.contains("/mpi-") && file.ends_with("collective.rs");
    (rsmpi_collective && message.contains("left == right")).then_some(
        "a `..._root` collective (gather_into_root, scatter_into_root, reduce_into_root...) \
         was called on a rank that is not the root: only the root calls it; the other \
         ranks call the matching `gather_into` / `scatter_into` / `reduce_into`",
    )
}

/// True for a file of a dependency or of Rust's standard library.
fn is_library(file: &str) -> bool {
    file.contains("/.cargo/registry/") || file.contains("/rustc/") || file.starts_with("/rustc")
}

/// A registry path cut to `mpi-0.8.2/src/collective.rs`.
fn short(file: &str) -> &str {
    match file.find("/.cargo/registry/src/") {
        Some(i) => {
            let rest = &file[i + "/.cargo/registry/src/".len()..];
            rest.split_once('/').map(|(_, r)| r).unwrap_or(rest)
        }
        None => file,
    }
}

/// The first frame of a backtrace that is the workspace's own code (not a dependency,
/// not the standard library, not this harness), as `file:line`, or as `function NAME`
/// when the binary has no line tables (release labs).
pub fn caller_in_workspace(trace: &str) -> Option<String> {
    let library = [
        "std::",
        "core::",
        "alloc::",
        "mpi::",
        "toolkit::",
        "rust_",
        "__rust",
        "_start",
        "test::",
        "<",
        "proptest::",
        "__libc",
        "clone",
    ];
    let mut frames: Vec<(String, Option<String>)> = vec![];
    for line in trace.lines().map(str::trim) {
        if let Some(at) = line.strip_prefix("at ") {
            if let Some(last) = frames.last_mut() {
                let file = at.rsplit_once(':').map(|(file, _col)| file).unwrap_or(at);
                last.1 = Some(file.to_string());
            }
        } else if let Some((num, name)) = line.split_once(": ") {
            if num.parse::<u32>().is_ok() {
                frames.push((name.trim().to_string(), None));
            }
        }
    }
    let own = frames.into_iter().find(|(name, file)| {
        let lib_fn = library.iter().any(|p| name.starts_with(p));
        let lib_file = file.as_deref().is_some_and(is_library);
        !lib_fn && !lib_file
    })?;
    Some(match own {
        (_, Some(file)) => file,
        (name, None) => format!("function {name}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_learners_line_is_found_below_the_library_frames() {
        let trace = "   0: std::backtrace::Backtrace::force_capture
             at /rustc/abc/library/std/src/backtrace.rs:312:13
   1: toolkit::panics::place
             at ./src/panics.rs:21:17
   2: mpi::collective::Root::gather_into_root
             at /root/.cargo/registry/src/index.crates.io-x/mpi-0.8.2/src/collective.rs:764:9
   3: ch00::gather::gather_on_root
             at ./chapters/ch00-toolkit/src/gather.rs:25:5
   4: warmup::ex0_3
             at ./chapters/ch00-toolkit/tests/warmup.rs:40:9";
        let found = caller_in_workspace(trace);
        assert_eq!(
            found.as_deref(),
            Some("./chapters/ch00-toolkit/src/gather.rs:25")
        );
    }

    #[test]
    fn without_line_tables_the_first_own_function_is_named() {
        let trace = "   0: std::backtrace::Backtrace::force_capture
   1: mpi::collective::Root::gather_into_root
   2: ch00::gather::gather_on_root
   3: main";
        let found = caller_in_workspace(trace);
        assert_eq!(
            found.as_deref(),
            Some("function ch00::gather::gather_on_root")
        );
    }

    #[test]
    fn registry_paths_are_shortened() {
        let f = "/root/.cargo/registry/src/index.crates.io-1949/mpi-0.8.2/src/collective.rs";
        assert_eq!(short(f), "mpi-0.8.2/src/collective.rs");
    }
}
