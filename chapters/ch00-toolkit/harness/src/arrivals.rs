//! When each rank arrived at each collective: the arrival recorder. A collective ends for
//! everyone only when its last rank has arrived, so the gaps between arrivals are time the
//! early ranks spent waiting; a rank that is last again and again is a straggler
//! (chapter 10, part 2; [`crate::stragglers`] makes one on purpose).
//!
//! While on ([`start`] to [`stop`]), the collective wrappers ([`crate::wrappers`], and
//! [`MPI_Iallreduce`] here) note, for each collective this thread enters on a
//! communicator that holds every rank of the test's world ([`crate::job::test_world`]), its name, its bytes and the
//! time it was entered (after a [`crate::stragglers`] wait, which stands for slow compute
//! before the call). A program timed on fewer cores than ranks starts its allreduce with
//! `MPI_Iallreduce` and waits for it with [`crate::idle::wait`]: ranks blocked in
//! `MPI_Allreduce` spin under MPICH and take the straggler's core. [`gather`]
//! then brings every rank's list to rank 0 as one matrix: `at[k][r]`, the time rank `r`
//! entered the `k`-th collective.
//!
//! The clock is `CLOCK_MONOTONIC` (what `std::time::Instant` reads on Linux): one clock for
//! the whole machine, so the times of ranks on one node compare directly. Ranks on
//! several nodes read several clocks, which differ by an offset (and drift apart slowly);
//! a multi-node recorder must estimate each node's offset first, e.g. from ping-pongs with
//! rank 0 (the offset is the mid-point of a round trip, to within half its time), and
//! subtract it. This one does not: it is for jobs on one machine.
//!
//! Checked under mpirun by `cargo test -q -p toolkit --test stragglers`.
//!
//! ```ignore
//! toolkit::arrivals::start();
//! for _ in 0..steps { compute(); world.all_reduce_into(&g, &mut sum, SystemOperation::sum()); }
//! let mine = toolkit::arrivals::stop();
//! if let Some(m) = toolkit::arrivals::gather(&world, &mine) { /* rank 0: m.at[k][r] */ }
//! ```

use crate::intercept::Kind;
use mpi::traits::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// One collective as this rank entered it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    /// The MPI function, e.g. `"MPI_Allreduce"`.
    pub name: &'static str,
    /// The bytes this rank passed in (0 for a barrier).
    pub bytes: i64,
    /// When it entered, in seconds of `CLOCK_MONOTONIC` ([`now`]).
    pub at: f64,
}

/// Every rank's arrivals, on rank 0 ([`gather`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrivalMatrix {
    /// The `k`-th collective's name and bytes, as rank 0 entered it.
    pub calls: Vec<(&'static str, i64)>,
    /// `at[k][r]`: when rank `r` entered the `k`-th collective, in seconds after the
    /// earliest arrival in the matrix.
    pub at: Vec<Vec<f64>>,
    /// How many collectives each rank recorded; the matrix has the fewest. They differ
    /// only when the ranks did not call the same collectives.
    pub recorded: Vec<usize>,
}

static RECORDING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static LOG: RefCell<Vec<Arrival>> = const { RefCell::new(Vec::new()) };
}

/// Now, in seconds of `CLOCK_MONOTONIC`: comparable between the ranks of one machine.
pub fn now() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is ours; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Starts recording (for every thread; each keeps its own list), with an empty list here.
pub fn start() {
    LOG.with(|log| log.borrow_mut().clear());
    RECORDING.store(true, Ordering::SeqCst);
}

/// Stops recording and returns this thread's arrivals since [`start`], in order.
pub fn stop() -> Vec<Arrival> {
    RECORDING.store(false, Ordering::SeqCst);
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// Brings every rank's `mine` (from [`stop`]) to rank 0 of `comm` as one matrix:
/// `Some` there, `None` elsewhere. Collective: every rank of `comm` calls it, with
/// recording stopped (its own collectives are not recorded then).
pub fn gather<C: Communicator>(comm: &C, mine: &[Arrival]) -> Option<ArrivalMatrix> {
    let p = comm.size() as usize;
    let mut counts = vec![0u64; p];
    comm.all_gather_into(&(mine.len() as u64), &mut counts[..]);
    let rows = counts.iter().copied().min().unwrap_or(0) as usize;
    let times: Vec<f64> = mine[..rows].iter().map(|a| a.at).collect();
    let root = comm.process_at_rank(0);
    if comm.rank() != 0 {
        root.gather_into(&times[..]);
        return None;
    }
    let mut all = vec![0.0f64; rows * p];
    root.gather_into_root(&times[..], &mut all[..]);
    let first = all.iter().copied().fold(f64::INFINITY, f64::min);
    let at = (0..rows)
        .map(|k| (0..p).map(|r| all[r * rows + k] - first).collect())
        .collect();
    Some(ArrivalMatrix {
        calls: mine[..rows].iter().map(|a| (a.name, a.bytes)).collect(),
        at,
        recorded: counts.iter().map(|&c| c as usize).collect(),
    })
}

/// The collective wrappers call this before the library: a straggler's wait
/// ([`crate::stragglers`]), then the arrival, noted while recording, and the call in the
/// flight recorder ([`crate::flight`]): `kind` and its `fields`, as the recorder of blocked
/// calls notes them.
// ANCHOR: arrive
pub(crate) fn arrive(
    kind: &'static Kind,
    fields: impl FnOnce() -> [i64; 4],
    bytes: i64,
    comm: mpi::ffi::MPI_Comm,
) {
    crate::stragglers::wait_before_collective();
    if RECORDING.load(Ordering::Relaxed) && spans_world(comm) {
        let at = now();
        let name = kind.name;
        LOG.with(|log| log.borrow_mut().push(Arrival { name, bytes, at }));
    }
    crate::flight::note(kind, fields, comm);
}
// ANCHOR_END: arrive

/// `MPI_Iallreduce`: a straggler's wait and the arrival ([`arrive`]), then the library's
/// `PMPI_Iallreduce`. The request returns at once, so the recorder of blocked calls
/// ([`crate::intercept`]) does not note it.
///
/// # Safety
/// The caller's MPI_Iallreduce arguments, valid as MPI requires; passed on unchanged.
#[no_mangle]
pub unsafe extern "C" fn MPI_Iallreduce(
    sb: *const std::os::raw::c_void,
    rb: *mut std::os::raw::c_void,
    n: std::os::raw::c_int,
    t: mpi::ffi::MPI_Datatype,
    op: mpi::ffi::MPI_Op,
    c: mpi::ffi::MPI_Comm,
    r: *mut mpi::ffi::MPI_Request,
) -> std::os::raw::c_int {
    static KIND: Kind = Kind {
        name: "MPI_Iallreduce",
        describe: |f| format!("{} bytes", f[0]),
    };
    let mut size = 0;
    // SAFETY: a valid datatype handle from the caller; `size` is ours.
    unsafe { mpi::ffi::PMPI_Type_size(t, &mut size) };
    let bytes = i64::from(n) * i64::from(size);
    arrive(&KIND, || [bytes, 0, 0, 0], bytes, c);
    // SAFETY: the caller's arguments, passed on unchanged to the library.
    unsafe { mpi::ffi::PMPI_Iallreduce(sb, rb, n, t, op, c, r) }
}

/// Referencing the wrapper keeps this object file in every binary that starts MPI
/// through the toolkit, so its `MPI_Iallreduce` replaces the library's.
pub(crate) fn keep_linked() {
    std::hint::black_box(MPI_Iallreduce as *const ());
}

/// True when `comm` holds every rank of the test's world (`MPI_COMM_WORLD`, or the
/// communicator of one rank count, [`crate::job::test_world`]; a local query).
fn spans_world(comm: mpi::ffi::MPI_Comm) -> bool {
    use mpi::ffi;
    let mut result = 0;
    let world = crate::job::test_world();
    // SAFETY: `comm` is the caller's valid communicator; `result` is ours.
    unsafe { ffi::PMPI_Comm_compare(comm, world, &mut result) };
    result == ffi::MPI_IDENT as i32 || result == ffi::MPI_CONGRUENT as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_moves_forward_in_seconds() {
        let (a, b) = (now(), now());
        assert!(a > 0.0 && b >= a, "{a} {b}");
        std::thread::sleep(std::time::Duration::from_millis(5));
        let gone = now() - b;
        assert!((0.004..1.0).contains(&gone), "5 ms measured as {gone} s");
    }

    #[test]
    fn only_arrivals_between_start_and_stop_are_kept() {
        start();
        assert!(stop().is_empty());
        LOG.with(|log| {
            log.borrow_mut().push(Arrival {
                name: "x",
                bytes: 1,
                at: 0.0,
            })
        });
        start();
        assert!(stop().is_empty(), "start clears what an earlier run left");
    }
}
