//! The checks of chapter 13, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch13-context-parallel --features solution --test main` (all of
//! them), `... --test main merge::` (one file), `make check CH=13` (your code, a row per
//! exercise).

mod common;

mod backward;
mod flags;
mod gpt;
mod merge;
mod ring;
mod ulysses;
mod zigzag;
