//! Exercise 5.3: the overlapped hybrid step: worker threads update the interior while the
//! main thread exchanges the halos (MPI_THREAD_FUNNELED: only the main thread calls MPI).
//!
//! Check: `make check CH=05` (test `ex5_3_overlapped_matches_serial`: the hybrid solver
//! with your step equals chapter 4's serial solver bit for bit, at 1 to 4 ranks x 1 to
//! 4 threads).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::bands::{rows_mut, update_band};
use crate::given_halo::exchange;
use ch04::field::Field;
use ch04::halo::Halo;
use ch04::stencil::update_boundary;
use ch04::topology::Neighbours;
use mpi::topology::CartesianCommunicator;
use rayon::ThreadPool;
use toolkit::split::block_range;

// ANCHOR: step_overlapped
/// One explicit time step, `src` -> `dst`, the exchange hidden behind a threaded interior update:
///
/// 1. `pool.in_place_scope(|s| ...)`: its body runs on *this* (the main) thread; jobs
///    given to `s.spawn` run on the pool's threads. Spawn one job per band of the
///    interior rows (padded rows `2..rows`, columns `2..cols`,
///    `update_band(src_now, band, first, 2, cols)`); then, in the body,
///    `halo.pack_from(src_now)` and [`exchange`]`(cart, nb, halo)`. The scope returns
///    when every job has finished.
/// 2. After the scope: `halo.unpack_into(src, nb)` (the ghosts, now that no thread reads
///    `src`), then [`update_boundary`]`(src, dst)` on the main thread.
///
/// Blocks with fewer than 3 rows or columns have no interior: everything is boundary.
pub fn step_overlapped(
    pool: &ThreadPool,
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    // Given: inside the scope, read `src` through this shared reborrow. `src` itself is
    // `&mut Field`: a `move` closure takes it whole, so a second job cannot have it (rustc
    // then suggests changing `update_band` in bands.rs, which is given: do not). After the
    // scope, `src` is yours again, mutable, for the unpack.
    let src_now: &Field = src;
    // TODO(ex 5.3): spawn the interior bands, exchange on the main thread, then the boundary
    todo!("ex 5.3: overlap the threaded interior update with the main thread's exchange")
}
// ANCHOR_END: step_overlapped
