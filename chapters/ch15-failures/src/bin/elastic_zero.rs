//! Chapter 8's `zero` trainer (`ch08::zero_lab`), built in this crate so that chapter 15's
//! checks can launch it under the elastic supervisor. The same program, flags and output.
//!
//! Run: `cargo run --release -p ch15-failures --features solution --bin elastic_zero --
//! --help` (or chapter 8's own: `make run CH=08`).

fn main() {
    ch08::zero_lab::main()
}
