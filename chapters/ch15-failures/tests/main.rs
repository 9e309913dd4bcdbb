//! The checks of chapter 15, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch15-failures --features solution --test main` (all of them),
//! `... --test main saver::` (one file), `make check CH=15` (your code, a row per exercise).

mod common;

mod elastic;
mod interval;
mod killed;
mod saver;
