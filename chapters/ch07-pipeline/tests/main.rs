//! The checks of chapter 07, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main` (all of them),
//! `... --test main chunked_train::` (one file), `make check CH=07` (your code, a row per exercise).

mod common;
mod schedule_props;

mod chunked_train;
mod device_wire;
mod dtype;
mod executor;
mod grid;
mod node_link;
mod rank_check;
mod rank_schedules;
mod recompute;
mod schedule_check;
mod schedules;
mod send_check;
mod stages;
mod task_executor;
mod trainer;
mod transfer;
