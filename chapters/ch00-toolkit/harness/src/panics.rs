//! Where did a panic come from, in the learner's terms?
//!
//! A panic raised inside a library (the `mpi` crate's assertion when `gather_into_root`
//! is called on a rank that is not the root, say, or a LibTorch error raised in `tch`)
//! points into a file the learner never wrote. [`place`] then also names the learner's
//! function and line (the first frame in a chapter's `src/` or in `solutions/`), else the
//! first line of the workspace that called it, found in a backtrace taken on the spot.
//! [`message`] folds LibTorch's C++ backtrace out of a panic message;
//! [`crate::library_panics::hint`] explains the known library panics.

use std::panic::Location;

/// `file:line`, and for a panic inside a dependency `file:line, called from your
/// FUNCTION at FILE:LINE` (with `via FILE:LINE` when the workspace code that called the
/// library is a test's helper, not the learner's function).
pub fn place(location: Option<&Location<'_>>) -> String {
    let Some(loc) = location else {
        return "an unknown place".to_string();
    };
    let here = format!("{}:{}", short(loc.file()), loc.line());
    if !is_library(loc.file()) {
        return here;
    }
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    let caller = caller_in_workspace(&trace).map(|c| tidy(&c));
    match (learner_frame(&trace), caller) {
        (Some(mine), Some(caller)) if !mine.contains(&caller) => {
            format!("{here}, called from your {mine} (via {caller})")
        }
        (Some(mine), _) => format!("{here}, called from your {mine}"),
        (None, Some(caller)) => format!("{here}, called from {caller}"),
        (None, None) => here,
    }
}

/// The panic's message as the report shows it: LibTorch's C++ backtrace folded away.
pub fn message(raw: &str) -> String {
    crate::libtorch_errors::fold(raw)
}

/// Where cargo unpacks the crates it downloads: `$CARGO_HOME/registry/src/<index>/`, with
/// `CARGO_HOME` `~/.cargo` by default but anywhere on a machine (or CI) that sets it.
const REGISTRY_SRC: &str = "/registry/src/";

/// True for a file of a dependency or of Rust's standard library.
fn is_library(file: &str) -> bool {
    file.contains(REGISTRY_SRC) || file.contains("/rustc/") || file.starts_with("/rustc")
}

/// A registry path cut to `mpi-0.8.2/src/collective.rs`.
fn short(file: &str) -> &str {
    match file.find(REGISTRY_SRC) {
        Some(i) => {
            let rest = &file[i + REGISTRY_SRC.len()..];
            rest.split_once('/').map(|(_, r)| r).unwrap_or(rest)
        }
        None => file,
    }
}

/// The learner's frames of a backtrace: the workspace's own frames (see
/// [`caller_in_workspace`]) whose file is in a chapter's `src/` or in `solutions/` (the
/// test files, `tests/...`, are the course's), innermost first, one per function and at
/// most three, as `FUNCTION at FILE:LINE, from your CALLER at FILE:LINE`: a panic in a
/// function an earlier exercise wrote also names the caller the failing one wrote.
pub fn learner_frame(trace: &str) -> Option<String> {
    let mut chain: Vec<(String, String)> = vec![];
    for (name, file) in own_frames(trace) {
        let Some(file) = file else { continue };
        let f = file.replace('\\', "/");
        let in_src = f.starts_with("src/") || f.contains("/src/");
        let name = function_name(&name).to_string();
        let mine = (in_src || f.contains("solutions/")) && !f.contains("/tests/");
        if mine && chain.len() < 3 && chain.iter().all(|(n, _)| *n != name) {
            chain.push((name, tidy(&file)));
        }
    }
    let chain: Vec<String> = chain.iter().map(|(n, f)| format!("{n} at {f}")).collect();
    (!chain.is_empty()).then(|| chain.join(", from your "))
}

/// A path with its `dir/..` pairs taken out: `./../../a/b/../../c/x.rs` -> `./../../c/x.rs`.
fn tidy(path: &str) -> String {
    let mut kept: Vec<&str> = vec![];
    for part in path.split('/') {
        match kept.last() {
            Some(&last) if part == ".." && last != ".." && last != "." => {
                kept.pop();
            }
            _ => kept.push(part),
        }
    }
    kept.join("/")
}

/// `ch07::executor::run_ops::{{closure}}::{{closure}}` -> `run_ops`.
fn function_name(frame: &str) -> &str {
    let mut name = frame;
    while let Some(outer) = name.strip_suffix("::{{closure}}") {
        name = outer;
    }
    name.rsplit("::").next().unwrap_or(name)
}

/// The first frame of a backtrace that is the workspace's own code (not a dependency,
/// not the standard library, not this harness), as `file:line`, or as `function NAME`
/// when the binary has no line tables (release labs).
pub fn caller_in_workspace(trace: &str) -> Option<String> {
    let own = own_frames(trace).into_iter().next()?;
    Some(match own {
        (_, Some(file)) => file,
        (name, None) => format!("function {name}"),
    })
}

/// The frames of a backtrace that are the workspace's own code, innermost first: (function,
/// `file:line` when the binary has line tables).
fn own_frames(trace: &str) -> Vec<(String, Option<String>)> {
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
        "tch::",
        "torch_sys::",
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
    frames.retain(|(name, file)| {
        let lib_fn = library.iter().any(|p| name.starts_with(p));
        let lib_file = file.as_deref().is_some_and(is_library);
        // This harness's frames, also where line tables name them without `toolkit::`.
        let harness = file
            .as_deref()
            .is_some_and(|f| f.replace('\\', "/").contains("harness/src/"));
        !lib_fn && !lib_file && !harness
    });
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_frames_are_skipped_even_without_their_crate_name() {
        let trace = "   0: panics::place
             at harness/src/panics.rs:24:16
   1: ch07::executor::run_ops
             at ./src/executor.rs:40:9";
        assert_eq!(
            learner_frame(trace).as_deref(),
            Some("run_ops at ./src/executor.rs:40")
        );
    }

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
    fn a_libtorch_panic_names_the_learners_function_below_the_tests_helper() {
        let trace = "   0: std::backtrace::Backtrace::force_capture
             at /rustc/abc/library/std/src/backtrace.rs:312:13
   1: toolkit::panics::place
             at ./chapters/ch00-toolkit/harness/src/panics.rs:27:17
   2: core::result::Result<T,E>::unwrap
             at /rustc/abc/library/core/src/result.rs:1173:23
   3: tch::wrappers::tensor_generated::<impl tch::wrappers::tensor::Tensor>::detach
             at /root/.cargo/registry/src/index.crates.io-x/tch-0.24.0/src/wrappers/tensor_generated.rs:8379:9
   4: executor::common::ref_send
             at ./tests/common/mod.rs:33:29
   5: ch07::executor::run_ops::{{closure}}::{{closure}}
             at ./src/executor.rs:98:45
   6: mpi::request::scope
             at /root/.cargo/registry/src/index.crates.io-x/mpi-0.8.2/src/request.rs:130:5
   7: ch07::executor::run_ops
             at ./src/executor.rs:50:5";
        assert_eq!(
            caller_in_workspace(trace).as_deref(),
            Some("./tests/common/mod.rs:33")
        );
        assert_eq!(
            learner_frame(trace).as_deref(),
            Some("run_ops at ./src/executor.rs:98")
        );
        let solution = trace.replace(
            "./src/executor.rs",
            "./src/../../../solutions/ch07-pipeline/executor.rs",
        );
        assert_eq!(
            learner_frame(&solution).as_deref(),
            Some("run_ops at ./../../solutions/ch07-pipeline/executor.rs:98")
        );
        let chain = "   1: ch11::exchange::exchange_rows\n             at ./src/exchange.rs:36:5
   2: ch11::backward::dispatch_backward\n             at ./src/backward.rs:28:15
   3: ch11::backward::backward\n             at ./src/backward.rs:47:21";
        assert_eq!(
            learner_frame(chain).as_deref(),
            Some("exchange_rows at ./src/exchange.rs:36, from your dispatch_backward at ./src/backward.rs:28, from your backward at ./src/backward.rs:47")
        );
        let only_tests =
            "   1: executor::common::ref_send\n             at ./tests/common/mod.rs:33:29";
        assert_eq!(learner_frame(only_tests), None);
    }

    #[test]
    fn paths_lose_their_dir_dot_dot_pairs() {
        let via =
            "./../../solutions/ch07-pipeline/../../chapters/ch07-pipeline/tests/common/mod.rs:33";
        assert_eq!(
            tidy(via),
            "./../../chapters/ch07-pipeline/tests/common/mod.rs:33"
        );
        assert_eq!(tidy("./src/x.rs:1"), "./src/x.rs:1");
    }

    #[test]
    fn registry_paths_are_shortened() {
        let elsewhere =
            "/tmp/ci/cargo-home/registry/src/index.crates.io-1949/tch-0.24.0/src/lib.rs";
        assert_eq!(short(elsewhere), "tch-0.24.0/src/lib.rs");
        assert!(
            is_library(elsewhere),
            "a CARGO_HOME of its own is still the registry"
        );
        let f = "/root/.cargo/registry/src/index.crates.io-1949/mpi-0.8.2/src/collective.rs";
        assert_eq!(short(f), "mpi-0.8.2/src/collective.rs");
    }
}
