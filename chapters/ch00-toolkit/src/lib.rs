//! Chapter 0: the SPMD model and how the checks work.
//!
//! - `src/bin/hello.rs`: the first lab (`make run CH=00`).
//! - [`warmup`]: the chapter's exercises (stubs; `--features solution` for the answers).
//!   Check them with `make check CH=00`.
//!
//! The harness the checks use is the `toolkit` crate in `harness/` next to this one.

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch00-toolkit/warmup.rs"
)]
pub mod warmup;
