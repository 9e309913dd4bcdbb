//! Exercise 5.2: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

use crate::bands::update_band;
use ch04::field::Field;
use rayon::prelude::*;
use rayon::ThreadPool;
use toolkit::split::block_range;

// ANCHOR: update_threaded
/// Updates every owned cell of `dst` from `src` with the threads of `pool`, one band of
/// whole rows per thread.
pub fn update_threaded(pool: &ThreadPool, src: &Field, dst: &mut Field) {
    let (rows, cols, w) = (src.rows, src.cols, src.stride());
    let threads = pool.current_num_threads().min(rows).max(1);
    // The owned rows, without the ghost rows above and below: rows * w values.
    let owned = &mut dst.data[w..(rows + 1) * w];
    // Cut them into `threads` bands of nearly equal whole rows (first row of each band,
    // and its slice): disjoint &mut slices, so the threads cannot write the same cell.
    let mut bands = Vec::with_capacity(threads);
    let mut rest = owned;
    for t in 0..threads {
        let n = block_range(rows, threads, t).len();
        let (band, tail) = rest.split_at_mut(n * w);
        bands.push((1 + block_range(rows, threads, t).start, band));
        rest = tail;
    }
    pool.install(|| {
        bands
            .into_par_iter()
            .for_each(|(first, band)| update_band(src, band, first, 1, cols + 1));
    });
}
// ANCHOR_END: update_threaded
