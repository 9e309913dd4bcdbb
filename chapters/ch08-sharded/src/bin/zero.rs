//! Lab: sharded data parallelism (ZeRO-1, ZeRO-2, ZeRO-3): `ch08::zero_lab` is the program.
//!
//! Run: `make run CH=08 SOLUTION=1` (or `cargo run --release -p ch08-sharded --features
//! solution --bin zero -- --stage 1`; `-- --help` for the flags).

fn main() {
    ch08::zero_lab::main()
}
