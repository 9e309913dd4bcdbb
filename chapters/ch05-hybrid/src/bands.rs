//! Given: the 5-point update of a *band* of rows, the piece of work one thread gets.
//!
//! A band is a run of whole padded rows of `dst`, as one mutable slice of `dst.data`:
//! padded rows `first..first + n` are `dst.data[first * stride..(first + n) * stride]`.
//! Two bands that do not overlap are two disjoint `&mut` slices, so two threads may write
//! them at once (`split_at_mut`, `chunks_mut`, rayon's `par_chunks_mut` make them). Every
//! thread reads the whole of `src`, which nobody writes during a step.
//!
//! The arithmetic is chapter 4's (`ch04::stencil`), term for term, so a threaded step
//! equals the serial one bit for bit, however the rows are split.

use ch04::field::Field;
use ch04::stencil::K;

// ANCHOR: update_band
/// Updates padded columns `j0..j1` of every row of `band` (padded rows `first..`, as many
/// as `band` holds) from `src`. Needs `1 <= first` and the band inside the owned rows.
pub fn update_band(src: &Field, band: &mut [f64], first: usize, j0: usize, j1: usize) {
    let w = src.stride();
    assert_eq!(
        band.len() % w,
        0,
        "a band is whole padded rows of {w} values"
    );
    if j0 >= j1 {
        return;
    }
    for (k, out_row) in band.chunks_mut(w).enumerate() {
        let i = first + k;
        let (up, mid, down) = (src.row(i - 1), src.row(i), src.row(i + 1));
        let (n, s) = (&up[j0..j1], &down[j0..j1]);
        let (wst, c, e) = (&mid[j0 - 1..j1 - 1], &mid[j0..j1], &mid[j0 + 1..j1 + 1]);
        let out = &mut out_row[j0..j1];
        for x in 0..out.len() {
            out[x] = c[x] + K * ((n[x] + s[x]) + (wst[x] + e[x]) - 4.0 * c[x]);
        }
    }
}
// ANCHOR_END: update_band

/// The slice of `dst.data` holding padded rows `rows` (a band).
pub fn rows_mut(dst: &mut Field, rows: std::ops::Range<usize>) -> &mut [f64] {
    let w = dst.stride();
    &mut dst.data[rows.start * w..rows.end * w]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ch04::stencil::{update_all, update_interior};

    fn numbered(rows: usize, cols: usize) -> Field {
        let mut f = Field::zeros(rows, cols);
        for (k, x) in f.data.iter_mut().enumerate() {
            *x = ((k * 7919) % 101) as f64 * 0.01;
        }
        f
    }

    #[test]
    fn bands_of_any_split_equal_chapter_4s_kernels_bit_for_bit() {
        for (rows, cols) in [(1, 1), (3, 4), (7, 6), (9, 2)] {
            let src = numbered(rows, cols);
            let (mut all, mut inner) = (Field::zeros(rows, cols), Field::zeros(rows, cols));
            update_all(&src, &mut all);
            update_interior(&src, &mut inner);
            for cut in 1..=rows {
                let mut mine = Field::zeros(rows, cols);
                update_band(&src, rows_mut(&mut mine, 1..cut), 1, 1, cols + 1);
                update_band(&src, rows_mut(&mut mine, cut..rows + 1), cut, 1, cols + 1);
                assert_eq!(mine, all, "{rows}x{cols} cut at {cut}");
            }
            let mut mine = Field::zeros(rows, cols);
            if rows > 2 {
                update_band(&src, rows_mut(&mut mine, 2..rows), 2, 2, cols);
            }
            assert_eq!(mine, inner, "{rows}x{cols} interior");
        }
    }
}
