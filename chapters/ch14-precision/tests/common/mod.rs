//! What the checks of chapter 14 share with its planted mistakes: each check takes the
//! function under test as an argument, so that a planted mistake goes through the same
//! check and gets the same message.
#![allow(dead_code)] // each test file uses part of it

use ch14::format::{Format, Overflow, FORMATS};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
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

/// A sum over the ranks of bf16 codes: the bf16 ring, ex 14.2's, or a planted mistake.
pub type Sum = fn(&SimpleCommunicator, &[u16]) -> Vec<u16>;

/// Every rank's codes (rank by rank) to the sums one process expects from them.
pub type Want = dyn Fn(&[Vec<u16>]) -> Vec<u16>;

/// Every rank's codes and a wrong result to the words that say what it looks like.
pub type Cause = dyn Fn(&[Vec<u16>], &[u16]) -> String;

/// Every rank's `codes`, in rank order (one allgather).
pub fn everyone(world: &SimpleCommunicator, codes: &[u16]) -> Vec<Vec<u16>> {
    let mut all = vec![0u16; codes.len() * world.size() as usize];
    world.all_gather_into(codes, &mut all[..]);
    all.chunks(codes.len().max(1))
        .take(world.size() as usize)
        .map(<[u16]>::to_vec)
        .collect()
}

/// One process's sums of `all` (every rank's codes, rank by rank), element by element:
/// element `i` adds the ranks in the order `order(i)` in f32, starting from `0.0`
/// (`from_zero`) or from the first value, rounded to bf16 after every addition (`every`)
/// or only at the end. The rounding is LibTorch's cast, not the code under test.
pub fn emulated(
    all: &[Vec<u16>],
    order: &dyn Fn(usize, usize) -> usize,
    from_zero: bool,
    every: bool,
) -> Vec<u16> {
    use ch14::format::BF16;
    let n = all.first().map_or(0, Vec::len);
    let bf16 = |xs: &[f32]| -> Vec<f32> {
        libtorch_codes(&BF16, xs)
            .iter()
            .map(|&c| BF16.decode(c))
            .collect()
    };
    let mut acc: Vec<Option<f32>> = vec![from_zero.then_some(0.0); n];
    for k in 0..all.len() {
        let sums: Vec<f32> = (0..n)
            .map(|i| {
                let x = BF16.decode(all[order(i, k)][i]);
                acc[i].map_or(x, |a| a + x)
            })
            .collect();
        let sums = if every { bf16(&sums) } else { sums };
        acc = sums.into_iter().map(Some).collect();
    }
    let total: Vec<f32> = acc.iter().map(|a| a.unwrap_or(0.0)).collect();
    libtorch_codes(&BF16, &total)
}

/// A check of a sum over the ranks: on the lab's values (`n` per rank for each `n` of
/// the cases), `sum` must give, on every rank, element by element, what `want` computes
/// from every rank's codes; else the first wrong element, with `cause` saying what the
/// result looks like instead.
pub fn check_sum(
    world: &SimpleCommunicator,
    sum: Sum,
    want: &Want,
    cause: &Cause,
) -> Result<(), String> {
    use ch14::format::BF16;
    let rank = world.rank() as usize;
    for (n, mean) in [(0, 1.0), (1, 1.0), (7, 0.0), (1000, 1.0), (333, 100.0)] {
        let codes = ch14::data::gradients(14, rank, n, mean);
        let got = sum(world, &codes);
        if got.len() != n {
            return Err(format!("{n} values per rank gave {} sums", got.len()));
        }
        let all = everyone(world, &codes);
        let wanted = want(&all);
        if let Some(i) = (0..n).find(|&i| got[i] != wanted[i]) {
            return Err(format!(
                "rank {rank}, {n} values per rank, element {i}: got {:e} (bf16 {:#06x}), want \
                 {:e} ({:#06x}): {}",
                BF16.decode(got[i]),
                got[i],
                BF16.decode(wanted[i]),
                wanted[i],
                cause(&all, &got)
            ));
        }
    }
    Ok(())
}

/// Ex 14.2's want: the f32 sums from 0.0 in rank order, rounded once.
pub fn one_rounding(all: &[Vec<u16>]) -> Vec<u16> {
    emulated(all, &|_, k| k, true, false)
}

/// What a wrong sum of ex 14.2 looks like: rounded at every addition, or in another order.
pub fn one_rounding_cause(all: &[Vec<u16>], got: &[u16]) -> String {
    let p = all.len();
    if got == emulated(all, &|_, k| k, true, true) {
        "the sum was rounded to bf16 after every addition (as the ring does): add in f32 and \
         round once, after the last rank's value"
            .into()
    } else if got == emulated(all, &|_, k| p - 1 - k, true, false) {
        "the ranks' values were added last rank first: add them in rank order, 0 to p-1".into()
    } else {
        "not the sum of every rank's value of this element in f32, rounded once (is each chunk \
         sent to its owner, and gathered back to its place?)"
            .into()
    }
}

/// The bf16 ring's want: chunk `c` starts at rank `c` and collects `c+1, c+2, ...`,
/// rounded after every addition.
pub fn ring_order(all: &[Vec<u16>]) -> Vec<u16> {
    let (p, n) = (all.len(), all.first().map_or(0, Vec::len));
    let chunk_of = |i: usize| (0..p).find(|&c| ch03::chunk_range(n, p, c).contains(&i));
    emulated(all, &|i, k| (chunk_of(i).unwrap_or(0) + k) % p, false, true)
}

/// A loss scaler's update to check: ex 14.3's, or a planted mistake.
pub type Update =
    fn(&SimpleCommunicator, &mut ch14::loss_scale::LossScaler, bool) -> ch14::loss_scale::Verdict;

/// Ex 14.3's agreement check: 40 steps in which rank `r` overflows at step `n` when
/// `(3n + 5r) % 7 == 0` (some ranks only, at some steps); after every step every rank
/// must hold the same verdict and scale, and skip exactly when some rank overflowed (the
/// rules themselves are the worked sequence's check). Else the first step where they
/// part, and the cause.
pub fn check_agreement(world: &SimpleCommunicator, update: Update) -> Result<(), String> {
    use ch14::loss_scale::{LossScaler, Verdict};
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let mut mine = LossScaler::new(1024.0, 4);
    for n in 0..40 {
        let overflow = |r: usize| (3 * n + 5 * r).is_multiple_of(7);
        let verdict = update(world, &mut mine, overflow(rank));
        let any = (0..p).any(overflow);
        let mut everyone = vec![0f32; 2 * p];
        let state = [mine.scale, f32::from(u8::from(verdict == Verdict::Skip))];
        world.all_gather_into(&state[..], &mut everyone[..]);
        let part = (0..p).find(|&r| everyone[2 * r..2 * r + 2] != everyone[..2]);
        if let Some(r) = part {
            let word = |skip: f32| if skip == 1.0 { "skipped" } else { "stepped" };
            return Err(format!(
                "step {n}: rank 0 {} with scale {} while rank {r} {} with scale {} (the \
                 overflow was on rank(s) {:?} only): an overflow on one rank is an overflow \
                 on all; reduce the flag with MPI MAX before deciding",
                word(everyone[1]),
                everyone[0],
                word(everyone[2 * r + 1]),
                everyone[2 * r],
                (0..p).filter(|&r| overflow(r)).collect::<Vec<_>>()
            ));
        }
        if (verdict == Verdict::Skip) != any {
            return Err(format!(
                "step {n}: {verdict:?} on every rank, though {}: skip exactly when some rank \
                 overflowed",
                if any {
                    "a rank overflowed"
                } else {
                    "no rank overflowed"
                }
            ));
        }
    }
    Ok(())
}
