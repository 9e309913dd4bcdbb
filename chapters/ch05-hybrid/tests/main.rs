//! The checks of chapter 05, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch05-hybrid --features solution --test main` (all of them),
//! `... --test main hybrid_step::` (one file), `make check CH=05` (your code, a row per exercise).

mod common;
mod gpu_common;

mod hybrid_step;
mod ipc_path;
mod levels;
mod overlap_threads;
mod per_thread;
mod placement;
mod staging;
mod staging_model;
