//! What the checks of chapter 14 share with its planted mistakes: each check takes the
//! function under test as an argument, so that a planted mistake goes through the same
//! check and gets the same message.
#![allow(dead_code)] // each test file uses part of it

pub mod fp8;
pub mod scaler;
pub mod sums;
pub mod training;

use ch14::format::{Format, Overflow, FORMATS};
use tch::{Kind, Tensor};

/// An `encode` to check: ex 14.1's, or a planted mistake.
pub type Encode = fn(&Format, f32) -> u16;

/// LibTorch's kind for each of the chapter's formats.
pub fn kind(fmt: &Format) -> Kind {
    match (fmt.exponent_bits, fmt.mantissa_bits) {
        (8, 7) => Kind::BFloat16,
        (5, 10) => Kind::Half,
        (5, 2) => Kind::Float8e5m2,
        _ => Kind::Float8e4m3fn,
    }
}

/// LibTorch's codes for `xs` cast to `fmt` (`Tensor::to_kind`, its bits read back).
pub fn libtorch_codes(fmt: &Format, xs: &[f32]) -> Vec<u16> {
    let cast = Tensor::from_slice(xs).to_kind(kind(fmt));
    match fmt.bits() {
        16 => {
            let bits = cast.view_dtype(Kind::Int16);
            Vec::<i16>::try_from(&bits)
                .expect("16-bit codes")
                .iter()
                .map(|&c| c as u16)
                .collect()
        }
        _ => {
            let bits = cast.view_dtype(Kind::Uint8);
            Vec::<u8>::try_from(&bits)
                .expect("8-bit codes")
                .iter()
                .map(|&c| u16::from(c))
                .collect()
        }
    }
}

/// The f32s that test a rounding hardest, for `fmt`: every code's value, the exact
/// midpoint between each pair of neighbouring codes (a tie), and the f32 just below and
/// just above each midpoint; then `random` f32 bit patterns from a seed (every exponent).
pub fn cases(fmt: &Format, random: usize) -> Vec<f32> {
    let mut xs = vec![];
    let tie = |a: f64, b: f64| {
        let mid = ((a + b) / 2.0) as f32; // exact: one bit more than the format's
        [
            mid,
            f32::from_bits(mid.to_bits() - 1),
            f32::from_bits(mid.to_bits() + 1),
        ]
    };
    for code in fmt.codes() {
        let a = fmt.decode(code as u16);
        xs.push(a);
        if code + 1 < 1 << fmt.bits() {
            let b = fmt.decode(code as u16 + 1);
            if a.is_finite() && b.is_finite() && (a >= 0.0) == (b >= 0.0) {
                xs.extend(tie(f64::from(a), f64::from(b)));
            }
        }
    }
    // Past the largest value: the tie with the value the next code would have had.
    let top = f64::from(fmt.max());
    let next = 2.0 * top - f64::from(fmt.decode(fmt.overflow_code(false) - 2));
    xs.extend(tie(top, next));
    xs.extend(tie(-top, -next));
    xs.push(next as f32);
    let mut state = 0x1400_u64 + u64::from(fmt.bits());
    xs.extend((0..random).map(|_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        f32::from_bits((state >> 32) as u32)
    }));
    xs.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
    ]);
    xs
}

fn same(fmt: &Format, a: u16, b: u16) -> bool {
    a == b || (fmt.is_nan(a) && fmt.is_nan(b))
}

/// What `encode` does wrong, found by probes whose right codes follow from the format's
/// fields alone: a subnormal (3 smallest quanta), a tie whose even neighbour is below
/// it, a value three quarters of the way to the next code, a value beyond the largest.
/// The first probe `encode` gets wrong names the slip; `None` if it gets all four right.
fn slip(fmt: &Format, encode: Encode) -> Option<String> {
    let m = fmt.mantissa_bits;
    let one = (fmt.bias() as u16) << m; // the code of 1.0
    let q = f64::from(fmt.epsilon()); // the quantum in [1, 2)
    let beyond = match fmt.overflow {
        Overflow::Infinity => "infinity",
        Overflow::NaN => "NaN",
    };
    let flushed = "a subnormal flushed to zero: below the smallest normal the codes go on \
                   with the smallest normal binade's quantum";
    let tie = "a tie went to the odd mantissa: round half to even (f64::round_ties_even)";
    let cut = "rounded toward zero (the bits cut off): round to the nearest code";
    let saturated = format!(
        "saturated at the largest value: {} turns a value beyond it into {beyond}",
        fmt.name
    );
    // In this order: a rounding toward zero also saturates, which is its own slip.
    let probes = [
        (3.0 * f64::from(fmt.min_subnormal()), 3, flushed.to_string()),
        (1.0 + 0.5 * q, one, tie.to_string()),
        (1.0 + 0.75 * q, one + 1, cut.to_string()),
        (
            (2.0 * f64::from(fmt.max())).min(f64::from(f32::MAX)),
            fmt.overflow_code(false),
            saturated,
        ),
    ];
    probes.into_iter().find_map(|(x, right, why)| {
        let got = encode(fmt, x as f32);
        (got != right && !(fmt.is_nan(got) && fmt.is_nan(right))).then(|| {
            format!(
                "{why} ({:e} gave code {got:#x}, its code is {right:#x})",
                x as f32
            )
        })
    })
}

/// The message for `x`, whose code `got` is not LibTorch's `want`: the codes, their
/// values, and the slip the probes find.
fn cause(fmt: &Format, encode: Encode, x: f32, got: u16, want: u16) -> String {
    let why = match (x.is_nan(), fmt.is_nan(got)) {
        (true, _) => "NaN must give a NaN code (fmt.nan_code())".to_string(),
        (false, true) => "a NaN for a number: only NaN, or in E4M3 a value beyond its largest, \
                          becomes NaN"
            .to_string(),
        _ => slip(fmt, encode).unwrap_or_else(|| "not the nearest code".into()),
    };
    format!(
        "{}: {x:e} (bits {:08x}) gave code {got:#x} ({:e}), LibTorch's cast gives {want:#x} \
         ({:e}): {why}",
        fmt.name,
        x.to_bits(),
        fmt.decode(got),
        fmt.decode(want)
    )
}

/// Ex 14.1's first check: every code's own value comes back as that code (a NaN code as
/// some NaN code).
pub fn check_round_trip(encode: Encode) -> Result<(), String> {
    for fmt in FORMATS {
        for code in fmt.codes().map(|c| c as u16) {
            let got = encode(&fmt, fmt.decode(code));
            if !same(&fmt, got, code) {
                return Err(format!(
                    "{}: the value {:e} of code {code:#x} came back as code {got:#x}: a value \
                     the format holds exactly must keep its code ({})",
                    fmt.name,
                    fmt.decode(code),
                    cause(&fmt, encode, fmt.decode(code), got, code)
                ));
            }
        }
    }
    Ok(())
}

/// Ex 14.1's second check: `cases(fmt, random)` round as LibTorch's casts do.
pub fn check_like_libtorch(encode: Encode, random: usize) -> Result<(), String> {
    for fmt in FORMATS {
        let xs = cases(&fmt, random);
        let want = libtorch_codes(&fmt, &xs);
        for (&x, &w) in xs.iter().zip(&want) {
            let got = encode(&fmt, x);
            if !same(&fmt, got, w) {
                return Err(cause(&fmt, encode, x, got, w));
            }
        }
    }
    Ok(())
}
