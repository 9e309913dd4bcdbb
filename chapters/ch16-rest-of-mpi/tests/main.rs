//! The checks of chapter 16, in one test binary: each module below is a file of this folder.
//!
//! Run: `cargo test -p ch16-rest-of-mpi --features solution --test main` (all of them),
//! `... --test main datatypes::` (one file), `make check CH=16` (your code, a row per exercise).

mod common;

mod datatypes;
mod io;
mod neighbourhood;
mod persistent;
mod rma;
