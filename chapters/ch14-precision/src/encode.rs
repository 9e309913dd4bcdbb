//! Chapter 14 exercise 14.1: rounding an f32 to the nearest code of a smaller format
//! (bf16, f16, FP8 E5M2 and E4M3; [`crate::format`] says what each code means). Check
//! with `make check CH=14`: every code of every format round-trips, and a million f32s
//! (every boundary case among them) round as LibTorch's casts do.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::format::{Format, Overflow};

// ANCHOR: encode
/// The code of `fmt` nearest to `x`, ties to the code with an even mantissa (IEEE's
/// round to nearest even):
/// 1. NaN gives a NaN code ([`Format::nan_code`]); the sign is `x`'s;
/// 2. the quantum (the gap between neighbouring codes) at `|x|` is
///    `fmt.quantum(max(exponent of |x|, fmt.min_exponent()))`: below the smallest normal
///    the subnormals keep the smallest normal binade's quantum;
/// 3. `|x| / quantum` rounded to an integer `n`, ties to even (`f64::round_ties_even`;
///    the division by a power of two is exact in f64);
/// 4. `n · quantum` above `fmt.max()` (or `x` infinite): [`Format::overflow_code`];
/// 5. else the code: below the normal range the mantissa field is `n` itself (exponent
///    field 0; `n = 2^m` is the smallest normal's code); otherwise the exponent field is
///    `exponent + bias` and the mantissa field `n - 2^m`, where `n = 2^(m+1)` (rounded up
///    into the next binade) means the next exponent with `n = 2^m`.
pub fn encode(fmt: &Format, x: f32) -> u16 {
    // TODO(ex 14.1): NaN; the quantum at |x|; n rounded to nearest even; overflow; the fields
    todo!("ex 14.1: round x to the nearest code of fmt, ties to even")
}
// ANCHOR_END: encode

/// `x` rounded to `fmt` and back: the value `fmt` stores for it.
pub fn round(fmt: &Format, x: f32) -> f32 {
    fmt.decode(encode(fmt, x))
}
