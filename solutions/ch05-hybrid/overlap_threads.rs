//! Exercise 5.3: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

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
/// One explicit time step, `src` -> `dst`: the pool updates the interior while the main thread
/// exchanges the halos; then the main thread updates the boundary.
pub fn step_overlapped(
    pool: &ThreadPool,
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    let (rows, cols) = (src.rows, src.cols);
    // Interior: padded rows 2..rows and columns 2..cols (none if the block is thin).
    let inner = rows.saturating_sub(2);
    let threads = pool.current_num_threads().min(inner).max(1);
    let src_now: &Field = src; // the workers only read src; nobody writes it in the scope
    pool.in_place_scope(|s| {
        if inner > 0 && cols > 2 {
            let mut rest = rows_mut(dst, 2..rows);
            for t in 0..threads {
                let band_rows = block_range(inner, threads, t);
                let (band, tail) = rest.split_at_mut(band_rows.len() * src_now.stride());
                rest = tail;
                let first = 2 + band_rows.start;
                s.spawn(move |_| update_band(src_now, band, first, 2, cols));
            }
        }
        // The body of in_place_scope runs on this thread, the main one: MPI is allowed.
        halo.pack_from(src_now);
        exchange(cart, nb, halo);
    });
    // Every worker has finished: src may change now.
    halo.unpack_into(src, nb);
    update_boundary(src, dst);
}
// ANCHOR_END: step_overlapped
