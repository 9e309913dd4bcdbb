//! Chapter 14 exercise 14.1: solution.

use crate::format::Format;

// ANCHOR: encode
/// Round to nearest even, in the quanta of `|x|`'s binade (the subnormals' below the
/// normal range), then the fields.
pub fn encode(fmt: &Format, x: f32) -> u16 {
    let sign = if x.is_sign_negative() {
        fmt.sign_bit()
    } else {
        0
    };
    if x.is_nan() {
        return sign | fmt.nan_code();
    }
    let a = f64::from(x.abs()); // every nonzero f32 is a normal f64
    let exponent = ((a.to_bits() >> 52) as i32) - 1023;
    let e = exponent.max(fmt.min_exponent());
    let n = (a / fmt.quantum(e)).round_ties_even();
    if x.is_infinite() || n * fmt.quantum(e) > f64::from(fmt.max()) {
        return fmt.overflow_code(x.is_sign_negative());
    }
    let m = fmt.mantissa_bits;
    let (mut e, mut n) = (e, n as u32);
    if n == 1 << (m + 1) {
        (e, n) = (e + 1, 1 << m); // rounded up into the next binade
    }
    if exponent < fmt.min_exponent() {
        return sign | n as u16; // a subnormal, or the smallest normal when n = 2^m
    }
    sign | (((e + fmt.bias()) as u16) << m) | (n - (1 << m)) as u16
}
// ANCHOR_END: encode

/// `x` rounded to `fmt` and back: the value `fmt` stores for it.
pub fn round(fmt: &Format, x: f32) -> f32 {
    fmt.decode(encode(fmt, x))
}
