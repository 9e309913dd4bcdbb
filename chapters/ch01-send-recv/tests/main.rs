//! The checks of chapter 01, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch01-send-recv --features solution --test main` (all of them),
//! `... --test main exchange::` (one file), `make check CH=01` (your code, a row per exercise).

mod common;

mod exchange;
mod fit;
mod halo;
mod ring;
