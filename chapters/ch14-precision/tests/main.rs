//! The checks of chapter 14, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch14-precision --features solution --test main` (all of them),
//! `... --test main encode::` (one file), `make check CH=14` (your code, a row per exercise).

mod common;

mod encode;
mod flags;
mod fp8;
mod scaler;
mod sums;
mod training;
mod zero;
