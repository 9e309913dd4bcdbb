//! The checks of chapter 00, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch00-toolkit --features solution --test main` (all of them),
//! `... --test main hello::` (one file), `make check CH=00` (your code, a row per exercise).

mod hello;
mod warmup;
