//! The checks of chapter 02, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch02-collectives --features solution --test main` (all of them),
//! `... --test main barrier::` (one file), `make check CH=02` (your code, a row per exercise).

mod common;

mod barrier;
mod broadcast;
mod exchange;
mod reduce;
mod scatter_gather;
