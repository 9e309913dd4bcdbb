//! Exercise 4.2: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::field::Field;

// ANCHOR: pack
/// Copies padded column `j` of the owned rows (padded rows `1..=rows`) into `out`.
pub fn pack_column(f: &Field, j: usize, out: &mut [f64]) {
    // One value per row: consecutive cells of a column are `stride` apart in memory.
    let column = f.data[f.idx(1, j)..].iter().step_by(f.stride());
    for (x, &v) in out.iter_mut().zip(column) {
        *x = v;
    }
}

/// Copies `column` (one value per owned row) into padded column `j` of the owned rows.
pub fn unpack_column(f: &mut Field, j: usize, column: &[f64]) {
    let (start, stride) = (f.idx(1, j), f.stride());
    let cells = f.data[start..].iter_mut().step_by(stride);
    for (x, &v) in cells.zip(column) {
        *x = v;
    }
}
// ANCHOR_END: pack
