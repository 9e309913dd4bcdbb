//! Checks of exercise 14.1 (rounding an f32 to bf16, f16, FP8 E5M2 and E4M3), in one
//! process: every code of every format round-trips (its value comes back as itself), and
//! every tie, every neighbour of a tie and a million random f32 bit patterns per format
//! round as LibTorch's casts do (`Tensor::to_kind`). A failure names the format, the f32,
//! both codes and the slip it looks like. Run: `make check CH=14` or `cargo test -p
//! ch14-precision --features solution --test main encode::`.

use crate::common::{check_like_libtorch, check_round_trip};
use ch14::encode::encode;

#[test]
fn ex14_1_every_code_round_trips() -> Result<(), String> {
    check_round_trip(encode)
}

#[test]
fn ex14_1_rounds_like_libtorch() -> Result<(), String> {
    check_like_libtorch(encode, 1 << 20)
}
