//! Exercise 5.2: the threaded update of a rank's block: T threads, one band of rows each.
//!
//! Check: `make check CH=05` (test `ex5_2_threaded_matches_serial`: the hybrid solver
//! with your update equals chapter 4's serial solver bit for bit, at 1 to 4 ranks x 1 to
//! 4 threads, fixed and periodic grids).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::bands::update_band;
use ch04::field::Field;
use rayon::prelude::*;
use rayon::ThreadPool;
use toolkit::split::block_range;

// ANCHOR: update_threaded
/// Updates every owned cell of `dst` from `src` (whose ghosts are filled) with the
/// threads of `pool`: split the owned padded rows `1..=rows` into
/// `pool.current_num_threads()` bands of whole rows, and let each thread update its band
/// with [`update_band`] (columns `1..cols + 1`). The rayon counterpart of OpenMP's
/// `#pragma omp parallel for`: inside `pool.install(...)`, turn the rows of `dst` into
/// disjoint mutable slices (`par_chunks_mut`, or `block_range` and `split_at_mut`) and
/// process them in parallel. The ghost rows of `dst` are not touched.
pub fn update_threaded(pool: &ThreadPool, src: &Field, dst: &mut Field) {
    // TODO(ex 5.2): split the owned rows into bands, one update_band per thread
    todo!("ex 5.2: update the block's rows in bands on the pool's threads")
}
// ANCHOR_END: update_threaded
