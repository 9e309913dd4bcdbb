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
use crate::kernels::{fence, has_avx, stencil_row_streaming, stencil_row_wide};
use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};
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

/// Which build of the update kernel the functions below use (all give the same field,
/// bit for bit; the benchmark compares their speed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Wide where the CPU has AVX, else simple. The default.
    Auto = 0,
    /// The loop below as Rust compiles it for any x86_64 (SSE2, 2 doubles per vector).
    Simple = 1,
    /// The same loop compiled for AVX ([`crate::kernels::stencil_row_wide`]).
    Wide = 2,
    /// AVX with streaming stores ([`crate::kernels::stencil_row_streaming`]).
    Streaming = 3,
}

static KERNEL: AtomicU8 = AtomicU8::new(Kernel::Auto as u8);

/// Chooses the kernel for every later update in this process.
pub fn set_kernel(kernel: Kernel) {
    KERNEL.store(kernel as u8, Ordering::Relaxed);
}

/// The kernel updates use now ([`Kernel::Auto`] resolved).
pub fn kernel() -> Kernel {
    match KERNEL.load(Ordering::Relaxed) {
        1 => Kernel::Simple,
        2 => Kernel::Wide,
        3 => Kernel::Streaming,
        _ if has_avx() => Kernel::Wide,
        _ => Kernel::Simple,
    }
}

// ANCHOR: kernel
/// `out[k] = c[k] + K·((n[k] + s[k]) + (w[k] + e[k]) - 4·c[k])` for every k.
///
/// Every slice is cut to `out.len()` values first, so the compiler drops the bounds
/// checks and vectorises the loop.
#[inline(always)]
pub(crate) fn stencil_row(out: &mut [f64], [n, s, w, c, e]: [&[f64]; 5]) {
    let len = out.len();
    let (n, s, w, c, e) = (&n[..len], &s[..len], &w[..len], &c[..len], &e[..len]);
    for k in 0..len {
        out[k] = c[k] + K * ((n[k] + s[k]) + (w[k] + e[k]) - 4.0 * c[k]);
    }
}

/// Updates padded row `i`, padded columns `j0..j1`, of `dst` from `src`: one pass
/// reading three rows of `src`, writing one of `dst`.
fn update_span(src: &Field, dst: &mut Field, i: usize, j0: usize, j1: usize) {
    if j0 >= j1 {
        return;
    }
    let (up, mid, down) = (src.row(i - 1), src.row(i), src.row(i + 1));
    let (n, s) = (&up[j0..j1], &down[j0..j1]);
    let (w, c, e) = (&mid[j0 - 1..j1 - 1], &mid[j0..j1], &mid[j0 + 1..j1 + 1]);
    let out = &mut dst.row_mut(i)[j0..j1];
    match kernel() {
        Kernel::Wide => stencil_row_wide(out, [n, s, w, c, e]),
        Kernel::Streaming => stencil_row_streaming(out, [n, s, w, c, e]),
        _ => stencil_row(out, [n, s, w, c, e]),
    }
}
// ANCHOR_END: kernel

/// Updates every owned cell of `dst` (the whole block; needs fresh ghosts in `src`).
pub fn update_all(src: &Field, dst: &mut Field) {
    timed(|| {
        for i in 1..=src.rows {
            update_span(src, dst, i, 1, src.cols + 1);
        }
        fence();
    });
}

/// Cells updated between two calls of `poll` in [`update_interior_polling`].
pub const POLL_CELLS: usize = 32 << 10;

// ANCHOR: interior_boundary
/// Updates the owned cells whose stencil touches no ghost cell: padded rows
/// `2..=rows-1`, columns `2..=cols-1`. Safe to run while the ghosts are in flight.
pub fn update_interior(src: &Field, dst: &mut Field) {
    update_interior_polling(src, dst, || {});
}

/// [`update_interior`] in blocks of rows of about [`POLL_CELLS`] cells, calling `poll`
/// between blocks: the place to give MPI a chance to move messages (`MPI_Test`) while
/// the interior is computed. Only the blocks count as kernel time.
pub fn update_interior_polling(src: &Field, dst: &mut Field, mut poll: impl FnMut()) {
    let block = (POLL_CELLS / src.cols.max(1)).max(1);
    let mut i = 2;
    while i < src.rows {
        let end = (i + block).min(src.rows);
        timed(|| {
            for row in i..end {
                update_span(src, dst, row, 2, src.cols);
            }
            fence();
        });
        poll();
        i = end;
    }
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
        // one cell per row on each side: the simple loop, inlined (a call per cell
        // through the kernel dispatch would cost more than the cell)
        let w = src.stride();
        let mut cell = |i: usize, j: usize| {
            let at = |di: usize, dj: usize| src.data[(i + di - 1) * w + j + dj - 1];
            let rows = [[at(0, 1)], [at(2, 1)], [at(1, 0)], [at(1, 1)], [at(1, 2)]];
            stencil_row(
                &mut dst.data[i * w + j..=i * w + j],
                rows.each_ref().map(|r| &r[..]),
            );
        };
        for i in 2..rows {
            cell(i, 1);
            if cols > 1 {
                cell(i, cols);
            }
        }
        fence();
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
    fn every_kernel_gives_the_same_field_bit_for_bit() {
        let src = numbered(37, 301); // odd widths: rows start at every alignment
        let mut by_kernel = vec![];
        for kernel in [Kernel::Simple, Kernel::Wide, Kernel::Streaming] {
            set_kernel(kernel);
            let (mut all, mut split) = (Field::zeros(37, 301), Field::zeros(37, 301));
            update_all(&src, &mut all);
            let mut polls = 0;
            update_interior_polling(&src, &mut split, || polls += 1);
            update_boundary(&src, &mut split);
            assert_eq!(all, split, "{kernel:?}");
            assert_eq!(polls, 1, "35 interior rows of 299 cells are one block");
            by_kernel.push(all);
        }
        set_kernel(Kernel::Auto);
        assert!(by_kernel.iter().all(|f| *f == by_kernel[0]));
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
