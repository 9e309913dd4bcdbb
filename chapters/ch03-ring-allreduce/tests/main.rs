//! The checks of chapter 03, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch03-ring-allreduce --features solution --test main` (all of them),
//! `... --test main allreduce::` (one file), `make check CH=03` (your code, a row per exercise).

mod common;

mod allreduce;
mod choose;
mod ring;
mod trees;
