//! The checks of chapter 12, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch12-communicating-less --features solution --test main` (all of them),
//! `... --test main busy::` (one file), `make check CH=12` (your code, a row per exercise).

mod common;

mod busy;
mod compressed;
mod hier;
mod local;
mod lsq;
mod nodes;
mod quant;
mod topk;
