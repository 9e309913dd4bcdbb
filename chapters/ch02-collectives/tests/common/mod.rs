//! Shared test data for chapter 2's checks: random cases, per-rank inputs, comparisons.
//!
//! Not a test itself; `mod common;` in each test file. A case holds the inputs of EVERY
//! rank (`raw`), so all ranks generate, fail and shrink the same case in lockstep, and each
//! rank can work out bounds that depend on everyone's inputs.
#![allow(dead_code)] // each test file uses part of it

pub mod blocks;

use ch02::ops::{Elem, Op};
use proptest::prelude::*;
use proptest::sample::select;

/// The rank counts every exercise is checked at: 1, powers of two, and odd ones.
pub const RANKS: &[u32] = &[1, 2, 3, 4, 5, 8];

/// Cases per property and element type (4 types per test: 4x this many per launch).
pub const CASES: u32 = 24;

/// One random case: a root, an operation, and `len` raw values per rank.
#[derive(Clone, Debug)]
pub struct Case {
    pub root: i32,
    pub op: Op,
    pub len: usize,
    pub raw: Vec<i32>,
}

impl Case {
    /// Rank `rank`'s input: its `len` raw values turned into `T`s suited to `op`.
    pub fn values<T: Elem>(&self, rank: usize) -> Vec<T> {
        let mine = &self.raw[rank * self.len..(rank + 1) * self.len];
        mine.iter().map(|&r| value(self.op, r)).collect()
    }

    /// Element-wise Σ|x| over ranks `ranks` (for the float tolerance of sums).
    pub fn abs_sums<T: Elem>(&self, ranks: std::ops::Range<usize>) -> Vec<f64> {
        toolkit::compare::abs_sums(self.len, ranks.map(|r| self.values::<T>(r)))
    }
}

/// A test value from a raw number in -1000..=1000.
///
/// Products use small integers or powers of two (±0.5, ±1, ±2): products of those are
/// exact in any order and do not overflow at 8 ranks. Everything else uses ±997 000
/// (integers: no overflow of a sum over 8 ranks) or multiples of 0.173 (floats: not
/// exactly representable, so sums really round).
pub fn value<T: Elem>(op: Op, raw: i32) -> T {
    match (op, T::IS_FLOAT) {
        (Op::Product, false) => T::from_f64(f64::from(raw % 4)),
        (Op::Product, true) => {
            let sign = if raw < 0 { -1.0 } else { 1.0 };
            T::from_f64(sign * 2f64.powi(raw.rem_euclid(3) - 1))
        }
        (_, false) => T::from_f64(f64::from(raw) * 997.0),
        (_, true) => T::from_f64(f64::from(raw) * 0.173),
    }
}

/// Lengths per rank: mostly short (0 included), sometimes past the eager limit (a few KiB),
/// where a send waits for its receive and ordering mistakes deadlock.
pub fn lengths() -> BoxedStrategy<usize> {
    prop_oneof![5 => 0..=24usize, 1 => 25..=3000usize].boxed()
}

/// Cases for `size` ranks: any root, an op from `ops`, `len` from `lens`.
pub fn cases(size: i32, ops: &'static [Op], lens: BoxedStrategy<usize>) -> BoxedStrategy<Case> {
    (0..size, select(ops), lens)
        .prop_flat_map(move |(root, op, len)| {
            let raw = prop::collection::vec(-1000i32..=1000, len * size as usize);
            raw.prop_map(move |raw| Case { root, op, len, raw })
        })
        .boxed()
}

/// Counts per rank: equal (the plain collective) or each its own (the varcount form).
pub fn counts(size: i32) -> BoxedStrategy<Vec<usize>> {
    let size = size as usize;
    prop_oneof![
        lengths().prop_map(move |n| vec![n; size]),
        prop::collection::vec(0..=24usize, size),
        prop::collection::vec(0..=2000usize, size),
    ]
    .boxed()
}
