//! The checks of chapter 06, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch06-data-parallel --features solution --test main` (all of them),
//! `... --test main bridge::` (one file), `make check CH=06` (your code, a row per exercise).

mod common;

mod bridge;
mod broadcast;
mod checkpoint;
mod data;
mod grad_sync;
mod sampler;
mod trainer;
