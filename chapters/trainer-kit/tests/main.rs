//! The checks of the trainer kit, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p trainer-kit --features solution --test main` (all of them),
//! `... --test main cli::` (one file).

mod cli;
mod cuda_ipc;
