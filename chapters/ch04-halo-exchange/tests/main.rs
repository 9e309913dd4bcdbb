//! The checks of chapter 04, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch04-halo-exchange --features solution --test main` (all of them),
//! `... --test main exchange::` (one file), `make check CH=04` (your code, a row per exercise).

mod common;

mod exchange;
mod gather;
mod neighbours;
mod overlap;
mod pack;
mod residual;
