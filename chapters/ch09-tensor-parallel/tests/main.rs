//! The checks of chapter 09, in one test binary: each module below is a file of this folder
//! (one binary links once and starts once; a binary per file cost a link each).
//!
//! Run: `cargo test -p ch09-tensor-parallel --features solution --test main` (all of them),
//! `... --test main attention::` (one file), `make check CH=09` (your code, a row per exercise).

mod common;
mod gpt_ckpt_common;

mod attention;
mod block;
mod gpt;
mod gpt_ckpt;
mod gpt_ckpt_faults;
mod gpt_ckpt_pipeline;
mod gpt_ckpt_pipeline_faults;
mod gpt_device;
mod gpt_lab;
mod gpt_pipeline;
mod gpt_trace;
mod lab;
mod linear;
mod mappings;
mod mlp;
mod sequence;
mod shards;
mod vocab;
