//! The checks of chapter 08, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main` (all of them),
//! `... --test main layout::` (one file), `make check CH=08` (your code, a row per exercise).

mod ckpt_common;
mod common;
mod zero3_common;

mod layout;
mod one_file;
mod reshard;
mod sharded_ckpt;
mod staged;
mod staged3;
mod step;
mod zero3;
mod zero3_ckpt;
mod zero_lab;
