//! Exercise 4.2: pack a strided column into a contiguous buffer, and unpack it.
//!
//! Check: `make check CH=04` (test `ex4_2_pack_unpack`, random block shapes).
#![allow(unused_variables)] // the stub does not use its arguments yet

use crate::field::Field;

// ANCHOR: pack
/// Copies padded column `j` of the owned rows (padded rows `1..=rows`) into `out`, which
/// holds `rows` values: `out[r]` is the cell at padded `(r + 1, j)`.
pub fn pack_column(f: &Field, j: usize, out: &mut [f64]) {
    // TODO(ex 4.2): one value per owned row, `f.stride()` apart in `f.data`
    todo!("ex 4.2: pack column j of the owned rows into out")
}

/// Copies `column` (one value per owned row) into padded column `j` of the owned rows:
/// the cell at padded `(r + 1, j)` becomes `column[r]`. Nothing else changes.
pub fn unpack_column(f: &mut Field, j: usize, column: &[f64]) {
    // TODO(ex 4.2): the reverse of pack_column
    todo!("ex 4.2: unpack a buffer into column j of the owned rows")
}
// ANCHOR_END: pack
