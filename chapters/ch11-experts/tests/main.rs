//! The checks of chapter 11, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch11-experts --features solution --test main` (all of them),
//! `... --test main backward::` (one file), `make check CH=11` (your code, a row per exercise).

mod common;

mod backward;
mod balance;
mod exchange;
mod layer;
mod router;
mod train;
