//! The checks of chapter 10, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch10-troubleshooting --features solution --test main` (all of them),
//! `... --test main crossover::` (one file), `make check CH=10` (your code, a row per exercise).

mod common;

mod crossover;
mod desync;
mod find;
mod order;
mod straggler;
mod waiting;
