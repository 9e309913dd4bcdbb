//! Given: the chapter's four number formats as bit fields, and what each code means.
//!
//! A code is a sign bit, `e` exponent bits and `m` mantissa bits, read as in IEEE 754:
//! an exponent field `E` between 1 and its largest normal value gives the normal number
//! `(1 + M/2^m) · 2^(E - bias)`, with `bias = 2^(e-1) - 1`; `E = 0` gives the subnormal
//! `M · 2^(1 - bias - m)` (zero when `M = 0`, a signed zero). What the all-ones exponent
//! means depends on the format:
//! - bf16, f16 and FP8 E5M2 follow IEEE: all-ones exponent with `M = 0` is infinity,
//!   with `M != 0` NaN; a value too large to round to the largest finite code becomes
//!   infinity;
//! - FP8 E4M3 (the OCP 8-bit format "E4M3FN", LibTorch's `Float8e4m3fn`) has no
//!   infinity: it gives the all-ones exponent to numbers up to 448 and keeps only the
//!   all-ones code `S.1111.111` for NaN; a value too large becomes NaN.
//!
//! Codes are held in a `u16` (the 8-bit formats in its low byte). Nothing to run here:
//! the `formats` lab prints the table (`make run CH=14`).

/// What a finite value too large for a format becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// Infinity of the value's sign (IEEE: bf16, f16, E5M2).
    Infinity,
    /// NaN (E4M3, which has no infinity).
    NaN,
}

/// A binary floating-point format of `1 + exponent_bits + mantissa_bits` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Its name in the tables (`"bf16"`).
    pub name: &'static str,
    /// `e`, the exponent field's width.
    pub exponent_bits: u32,
    /// `m`, the mantissa field's width (the bits after the leading 1).
    pub mantissa_bits: u32,
    /// What a value too large becomes; also whether the all-ones exponent is IEEE's
    /// (infinity and NaN) or holds numbers ([`Overflow::NaN`]: E4M3).
    pub overflow: Overflow,
}

/// bfloat16: f32's exponent range with 8 bits of precision (the top half of an f32).
pub const BF16: Format = Format {
    name: "bf16",
    exponent_bits: 8,
    mantissa_bits: 7,
    overflow: Overflow::Infinity,
};

/// IEEE half precision: 11 bits of precision, numbers up to 65504.
pub const F16: Format = Format {
    name: "f16",
    exponent_bits: 5,
    mantissa_bits: 10,
    overflow: Overflow::Infinity,
};

/// OCP FP8 E4M3 ("E4M3FN"): 4 bits of precision, numbers up to 448, no infinity.
pub const E4M3: Format = Format {
    name: "fp8 e4m3",
    exponent_bits: 4,
    mantissa_bits: 3,
    overflow: Overflow::NaN,
};

/// OCP FP8 E5M2: 3 bits of precision, f16's exponent range, IEEE's infinity and NaN.
pub const E5M2: Format = Format {
    name: "fp8 e5m2",
    exponent_bits: 5,
    mantissa_bits: 2,
    overflow: Overflow::Infinity,
};

/// The four, widest first.
pub const FORMATS: [Format; 4] = [BF16, F16, E5M2, E4M3];

impl Format {
    /// Bits per code: 16 or 8.
    pub fn bits(&self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }

    /// Every code of the format, `0 .. 2^bits`.
    pub fn codes(&self) -> std::ops::Range<u32> {
        0..1 << self.bits()
    }

    /// The exponent bias, `2^(e-1) - 1` (127 for bf16, 15 for f16 and E5M2, 7 for E4M3).
    pub fn bias(&self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    /// The exponent of the smallest normal number, `1 - bias`.
    pub fn min_exponent(&self) -> i32 {
        1 - self.bias()
    }

    /// The sign bit of a code.
    pub fn sign_bit(&self) -> u16 {
        1 << (self.exponent_bits + self.mantissa_bits)
    }

    fn fields(&self, code: u16) -> (bool, u32, u32) {
        let m = self.mantissa_bits;
        let exponent = (u32::from(code) >> m) & ((1 << self.exponent_bits) - 1);
        (
            code & self.sign_bit() != 0,
            exponent,
            u32::from(code) & ((1 << m) - 1),
        )
    }

    /// Whether `code` is a NaN.
    pub fn is_nan(&self, code: u16) -> bool {
        let (_, exponent, mantissa) = self.fields(code);
        let all_ones = (1 << self.exponent_bits) - 1;
        match self.overflow {
            Overflow::Infinity => exponent == all_ones && mantissa != 0,
            Overflow::NaN => exponent == all_ones && mantissa == (1 << self.mantissa_bits) - 1,
        }
    }

    /// The value of `code` (exact: every code of these formats is an f32).
    pub fn decode(&self, code: u16) -> f32 {
        if (self.exponent_bits, self.mantissa_bits) == (8, 7) {
            return f32::from_bits(u32::from(code) << 16); // bf16 is the top half of an f32
        }
        let (negative, exponent, mantissa) = self.fields(code);
        let all_ones = (1 << self.exponent_bits) - 1;
        let magnitude = if self.is_nan(code) {
            f64::NAN
        } else if exponent == all_ones && self.overflow == Overflow::Infinity {
            f64::INFINITY
        } else if exponent == 0 {
            f64::from(mantissa) * self.quantum(self.min_exponent())
        } else {
            let significand = f64::from((1 << self.mantissa_bits) + mantissa);
            significand * self.quantum(exponent as i32 - self.bias())
        };
        (if negative { -magnitude } else { magnitude }) as f32
    }

    /// The gap between neighbouring codes in the binade `[2^exponent, 2^(exponent+1))`:
    /// `2^(exponent - m)`.
    pub fn quantum(&self, exponent: i32) -> f64 {
        let k = exponent - self.mantissa_bits as i32;
        if (-1022..=1023).contains(&k) {
            f64::from_bits(((k + 1023) as u64) << 52) // 2^k written as an f64's fields
        } else {
            2f64.powi(k)
        }
    }

    /// The largest finite value: `(2 - 2^-m) · 2^(2^e - 2 - bias)` for the IEEE formats,
    /// 448 for E4M3 (its all-ones exponent with mantissa `110`).
    pub fn max(&self) -> f32 {
        let all_ones = (1u16 << self.exponent_bits) - 1;
        let m = self.mantissa_bits;
        let code = match self.overflow {
            Overflow::Infinity => ((all_ones - 1) << m) | ((1 << m) - 1),
            Overflow::NaN => (all_ones << m) | ((1 << m) - 2),
        };
        self.decode(code)
    }

    /// The smallest positive normal value, `2^(1 - bias)`.
    pub fn min_normal(&self) -> f32 {
        2f64.powi(self.min_exponent()) as f32
    }

    /// The smallest positive value, a subnormal: `2^(1 - bias - m)`.
    pub fn min_subnormal(&self) -> f32 {
        self.quantum(self.min_exponent()) as f32
    }

    /// The gap between 1 and the next value, `2^-m`: rounding to nearest errs by at most
    /// half of it, relative to the value (in the normal range).
    pub fn epsilon(&self) -> f32 {
        2f64.powi(-(self.mantissa_bits as i32)) as f32
    }

    /// The code of a value too large, or of infinity, with its sign: infinity or NaN as
    /// [`Format::overflow`] says.
    pub fn overflow_code(&self, negative: bool) -> u16 {
        let sign = if negative { self.sign_bit() } else { 0 };
        let all_ones = (1u16 << self.exponent_bits) - 1;
        match self.overflow {
            Overflow::Infinity => sign | (all_ones << self.mantissa_bits),
            Overflow::NaN => {
                sign | (all_ones << self.mantissa_bits) | ((1 << self.mantissa_bits) - 1)
            }
        }
    }

    /// A NaN code (quiet: the top mantissa bit set).
    pub fn nan_code(&self) -> u16 {
        let all_ones = (1u16 << self.exponent_bits) - 1;
        (all_ones << self.mantissa_bits) | ((1 << self.mantissa_bits) - 1)
    }
}
