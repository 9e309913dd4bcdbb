//! Given: the explicit (forward Euler) update of the heat equation, the 5-point stencil, and its residual.
//!
//! One step computes every owned cell of `dst` from `src`:
//! `new = c + K * ((n + s) + (w + e) - 4 c)`, where c is the cell and n, s, w, e its four
//! neighbours in `src`. The serial and the parallel solver call these same functions, so
//! the parallel field equals the serial one bit for bit: every cell is the same
//! expression of the same inputs, evaluated in the same order.
//!
//! Time spent in these kernels is added to a per-thread counter ([`kernel_seconds`]), so
//! a solver can split a step into compute and communication without help from your code.

use crate::field::Field;
use std::cell::Cell;
use std::time::Instant;

/// The diffusion number `kappa * dt / h^2` (`kappa` the diffusivity); the explicit (forward
/// Euler) step is stable up to 0.25.
pub const K: f64 = 0.2;

thread_local! {
    static KERNEL_SECONDS: Cell<f64> = const { Cell::new(0.0) };
}

/// Seconds this thread has spent in the update kernels so far.
pub fn kernel_seconds() -> f64 {
    KERNEL_SECONDS.with(Cell::get)
}

fn timed(f: impl FnOnce()) {
    let start = Instant::now();
    f();
    let t = start.elapsed().as_secs_f64();
    KERNEL_SECONDS.with(|s| s.set(s.get() + t));
}

// ANCHOR: kernel
/// Updates padded row `i`, padded columns `j0..j1`, of `dst` from `src`.
///
/// Every slice below has length `j1 - j0`, so the compiler drops the bounds checks and
/// vectorises the loop: one pass reading three rows of `src`, writing one of `dst`.
fn update_span(src: &Field, dst: &mut Field, i: usize, j0: usize, j1: usize) {
    if j0 >= j1 {
        return;
    }
    let (up, mid, down) = (src.row(i - 1), src.row(i), src.row(i + 1));
    let (n, s) = (&up[j0..j1], &down[j0..j1]);
    let (w, c, e) = (&mid[j0 - 1..j1 - 1], &mid[j0..j1], &mid[j0 + 1..j1 + 1]);
    let out = &mut dst.row_mut(i)[j0..j1];
    for k in 0..out.len() {
        out[k] = c[k] + K * ((n[k] + s[k]) + (w[k] + e[k]) - 4.0 * c[k]);
    }
}
// ANCHOR_END: kernel

/// Updates every owned cell of `dst` (the whole block; needs fresh ghosts in `src`).
pub fn update_all(src: &Field, dst: &mut Field) {
    timed(|| {
        for i in 1..=src.rows {
            update_span(src, dst, i, 1, src.cols + 1);
        }
    });
}

// ANCHOR: interior_boundary
/// Updates the owned cells whose stencil touches no ghost cell: padded rows
/// `2..=rows-1`, columns `2..=cols-1`. Safe to run while the ghosts are in flight.
pub fn update_interior(src: &Field, dst: &mut Field) {
    timed(|| {
        for i in 2..src.rows {
            update_span(src, dst, i, 2, src.cols);
        }
    });
}

/// Updates the ring of owned cells next to the ghosts: the first and last owned row and
/// column. Run it once the ghosts of `src` hold the neighbours' values.
pub fn update_boundary(src: &Field, dst: &mut Field) {
    let (rows, cols) = (src.rows, src.cols);
    timed(|| {
        update_span(src, dst, 1, 1, cols + 1);
        if rows > 1 {
            update_span(src, dst, rows, 1, cols + 1);
        }
        for i in 2..rows {
            update_span(src, dst, i, 1, 2);
            if cols > 1 {
                update_span(src, dst, i, cols, cols + 1);
            }
        }
    });
}
// ANCHOR_END: interior_boundary

/// Sum over the owned cells of `(new - old)^2`, row by row (a fixed order).
pub fn local_residual(old: &Field, new: &Field) -> f64 {
    let mut sum = 0.0;
    for r in 0..old.rows {
        for (a, b) in old.owned_row(r).iter().zip(new.owned_row(r)) {
            sum += (b - a) * (b - a);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(rows: usize, cols: usize) -> Field {
        let mut f = Field::zeros(rows, cols);
        for (k, x) in f.data.iter_mut().enumerate() {
            *x = ((k * 7919) % 101) as f64 * 0.01;
        }
        f
    }

    #[test]
    fn interior_plus_boundary_is_the_whole_update_bit_for_bit() {
        for (rows, cols) in [(1, 1), (1, 5), (5, 1), (2, 2), (3, 4), (7, 6)] {
            let src = numbered(rows, cols);
            let (mut all, mut split) = (Field::zeros(rows, cols), Field::zeros(rows, cols));
            update_all(&src, &mut all);
            update_interior(&src, &mut split);
            update_boundary(&src, &mut split);
            assert_eq!(all, split, "{rows}x{cols}");
        }
    }

    #[test]
    fn a_constant_field_does_not_change() {
        let mut src = Field::zeros(3, 3);
        src.data.fill(0.5);
        let mut dst = Field::zeros(3, 3);
        update_all(&src, &mut dst);
        assert_eq!(dst.owned(), vec![0.5; 9]);
        assert_eq!(local_residual(&src, &dst), 0.0);
    }
}
