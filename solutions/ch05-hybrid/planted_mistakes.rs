//! Mistakes a learner makes in this chapter's threads half, planted on purpose, and what
//! the checks say about them. Each `planted_*` function runs a real exercise property
//! against a wrong part; it is `#[ignore]`d and started only by the test below it, under
//! mpirun, through `launch_self`. The assertions pin the message a learner will see.
//!
//! Run: `cargo test -p ch05-hybrid --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch05-hybrid/tests/common/mod.rs"]
mod common;
use ch04::field::Field;
use ch04::halo::Halo;
use ch04::stencil::{update_all, update_boundary, update_interior};
use ch04::topology::Neighbours;
use ch05::bands::update_band;
use ch05::given_halo::exchange;
use ch05::hybrid_solver::{Parts, Variant};
use common::{reference_parts, ring_matches, solver_property};
use mpi::environment::Threading;
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use proptest::strategy::Just;
use rayon::prelude::*;
use rayon::ThreadPool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, launch_self, run_body, run_body_with};

// ANCHOR: shared_comm
/// Mistake 1 (ex 5.4): every thread sends and receives on the one world communicator,
/// with one tag, from any source. A receive matches the first message that fits, and
/// every message fits every receive. To show it on every run (not only when the timing
/// is unlucky), the threads take turns: they send last thread first, then receive first
/// thread first; so thread 0 is handed the message thread T-1 sent.
fn shared_comm(world: &SimpleCommunicator, outgoing: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (rank, size) = (world.rank(), world.size());
    let right = (rank + 1) % size;
    let n = outgoing.len();
    let turn = AtomicUsize::new(0);
    let wait_for = |k: usize| {
        while turn.load(Ordering::Acquire) != k {
            std::thread::yield_now();
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let (out, turn, wait_for) = (&outgoing[t], &turn, &wait_for);
                s.spawn(move || {
                    use mpi::ffi::*;
                    let mut buf = vec![0.0f64; out.len()];
                    let mut status = std::mem::MaybeUninit::uninit();
                    wait_for(n - 1 - t); // sends: thread n-1 first
                                         // SAFETY: valid buffers of out.len() doubles; MPI_THREAD_MULTIPLE.
                    unsafe {
                        let (count, comm) = (out.len() as i32, RSMPI_COMM_WORLD);
                        MPI_Send(out.as_ptr().cast(), count, RSMPI_DOUBLE, right, 0, comm);
                        turn.fetch_add(1, Ordering::Release);
                        wait_for(n + t); // receives: thread 0 first
                        let any = RSMPI_ANY_SOURCE;
                        let into = buf.as_mut_ptr().cast();
                        MPI_Recv(into, count, RSMPI_DOUBLE, any, 0, comm, status.as_mut_ptr());
                    }
                    turn.fetch_add(1, Ordering::Release);
                    buf
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}
// ANCHOR_END: shared_comm

#[test]
#[ignore = "planted mistake: started by threads_sharing_a_communicator_get_each_others_messages"]
fn planted_shared_comm() {
    run_body_with("planted_shared_comm", Threading::Multiple, |world| {
        property(world, "each thread gets the message of its partner thread")
            .check(Just(vec![8usize; 3]), |lens| {
                ring_matches(world, lens, shared_comm)
            })
    });
}

#[test]
fn threads_sharing_a_communicator_get_each_others_messages() {
    let out = launch_self("planted_shared_comm", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    let want = "thread 0 of rank 0 got thread 2's message (from rank 1), not thread 0's";
    assert!(text.contains(want), "{text}");
    println!("{}", toolkit::testing::learner_view(&out));
}

// ANCHOR: boundary_before_unpack
/// Mistake 2 (ex 5.3): the boundary updated before the ghosts are unpacked: it reads the
/// ghosts of the step before (or the initial zeros).
fn boundary_before_unpack(
    pool: &ThreadPool,
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    let src_now: &Field = src;
    pool.in_place_scope(|s| {
        let dst = &mut *dst;
        s.spawn(move |_| update_interior(src_now, dst));
        halo.pack_from(src_now);
        exchange(cart, nb, halo);
    });
    update_boundary(src, dst); // WRONG: the ghosts of src are not unpacked yet
    halo.unpack_into(src, nb);
}
// ANCHOR_END: boundary_before_unpack

#[test]
#[ignore = "planted mistake: started by the_boundary_before_the_unpack_is_caught"]
fn planted_boundary_before_unpack() {
    run_body("planted_boundary_before_unpack", |world| {
        let parts = Parts {
            overlapped: boundary_before_unpack,
            ..reference_parts()
        };
        solver_property(world, Variant::Overlapped, parts)
    });
}

#[test]
fn the_boundary_before_the_unpack_is_caught() {
    let out = launch_self("planted_boundary_before_unpack", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(60));
    assert!(text.contains("minimal failing case"), "{text}");
    assert!(text.contains("on the block's boundary ring"), "{text}");
    println!("{}", toolkit::testing::learner_view(&out));
}

// ANCHOR: smuggled
/// Mistake 3 (ex 5.3): under Open MPI the compiler refuses to let a worker thread use the
/// Cartesian communicator (it is not `Sync` there; under MPICH it is, and the wrapper is
/// not needed); a wrapper with a false `unsafe impl` silences it, and the exchange runs on
/// a worker thread, under MPI_THREAD_FUNNELED.
struct Smuggled<'a>(&'a CartesianCommunicator);
// WRONG: the claim is false: MPI granted FUNNELED, so no worker may call MPI.
unsafe impl Sync for Smuggled<'_> {}
impl Smuggled<'_> {
    fn get(&self) -> &CartesianCommunicator {
        self.0
    }
}

fn exchange_on_a_worker(
    pool: &ThreadPool,
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    let smuggled = Smuggled(cart);
    halo.pack_from(src);
    pool.install(|| exchange(smuggled.get(), nb, halo)); // WRONG: runs on worker-0
    halo.unpack_into(src, nb);
    update_all(src, dst);
}
// ANCHOR_END: smuggled

#[test]
#[ignore = "planted mistake: started by mpi_from_a_worker_under_funneled_is_named"]
fn planted_exchange_on_a_worker() {
    run_body("planted_exchange_on_a_worker", |world| {
        let parts = Parts {
            overlapped: exchange_on_a_worker,
            ..reference_parts()
        };
        solver_property(world, Variant::Overlapped, parts)
    });
}

#[test]
fn mpi_from_a_worker_under_funneled_is_named() {
    let out = launch_self("planted_exchange_on_a_worker", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    let want =
        "the halo exchange (MPI_Neighbor_alltoallv) was called from the worker thread \"worker-";
    assert!(text.contains(want), "{text}");
    assert!(text.contains("not the main thread"), "{text}");
    println!("{}", toolkit::testing::learner_view(&out));
}

// ANCHOR: band_one_row_high
/// Mistake 4 (ex 5.2): the owned rows sliced from the top of `dst.data`, the ghost row
/// included (`..rows * w` instead of `w..(rows + 1) * w`): each band's values land one row
/// too high, in the rows of the band's `first` row and above.
fn bands_one_row_high(pool: &ThreadPool, src: &Field, dst: &mut Field) {
    let (rows, cols, w) = (src.rows, src.cols, src.stride());
    let threads = pool.current_num_threads().min(rows).max(1);
    let mut rest = &mut dst.data[..rows * w]; // WRONG: the ghost row above is not skipped
    let mut bands = vec![];
    for t in 0..threads {
        let r = toolkit::split::block_range(rows, threads, t);
        let (band, tail) = rest.split_at_mut(r.len() * w);
        bands.push((1 + r.start, band));
        rest = tail;
    }
    pool.install(|| {
        let each = |(first, band): (usize, &mut [f64])| update_band(src, band, first, 1, cols + 1);
        bands.into_par_iter().for_each(each);
    });
}
// ANCHOR_END: band_one_row_high

#[test]
#[ignore = "planted mistake: started by a_band_sliced_one_row_high_is_named"]
fn planted_band_one_row_high() {
    run_body("planted_band_one_row_high", |world| {
        let parts = Parts {
            update: bands_one_row_high,
            ..reference_parts()
        };
        solver_property(world, Variant::Threaded, parts)
    });
}

#[test]
fn a_band_sliced_one_row_high_is_named() {
    let out = launch_self("planted_band_one_row_high", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(60));
    // Counted from 0 throughout; the band's slice named, not the exchange (in ex 5.2 the
    // test's own exchange fills the ghosts).
    assert!(
        text.contains("(rows and columns counted from 0 here): row 0 of the block's rows 0.."),
        "{text}"
    );
    assert!(text.contains("the first row of thread 0's band"), "{text}");
    assert!(
        text.contains("check the band's slice of `dst.data`"),
        "{text}"
    );
    assert!(!text.contains("boundary ring"), "{text}");
    println!("{}", toolkit::testing::learner_view(&out));
}
