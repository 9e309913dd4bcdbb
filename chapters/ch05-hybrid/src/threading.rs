//! Given: the four MPI thread levels, a communicator a thread may own, and the check that
//! only the main thread calls MPI under `MPI_THREAD_FUNNELED`.
//!
//! ```text
//!   MPI_THREAD_SINGLE      one thread in the process
//!   MPI_THREAD_FUNNELED    many threads; only the main thread calls MPI
//!   MPI_THREAD_SERIALIZED  many threads; any may call MPI, never two at once
//!   MPI_THREAD_MULTIPLE    many threads; any may call MPI at any time
//! ```
//! A program *requests* a level from `MPI_Init_thread` (rsmpi:
//! `mpi::initialize_with_threading(level)`) and the library *grants* one, maybe lower.

use mpi::environment::Threading;
use mpi::topology::SimpleCommunicator;

/// `MPI_THREAD_FUNNELED` and friends, as the standard names them.
pub use toolkit::job::level_name;

/// The four levels, weakest first (`Threading` is ordered the same way).
pub const LEVELS: [Threading; 4] = [
    Threading::Single,
    Threading::Funneled,
    Threading::Serialized,
    Threading::Multiple,
];

/// What a program may do with threads at `level`, in one line.
pub fn what_it_allows(level: Threading) -> &'static str {
    match level {
        Threading::Single => "one thread only",
        Threading::Funneled => "many threads, only the main thread calls MPI",
        Threading::Serialized => "many threads, one MPI call at a time",
        Threading::Multiple => "many threads, MPI calls from any thread at any time",
    }
}

// ANCHOR: thread_comm
/// A communicator one thread owns. rsmpi's communicators hold the library's raw
/// `MPI_Comm`: under Open MPI a pointer, so Rust will not let one cross into another
/// thread (`SimpleCommunicator` is neither `Send` nor `Sync`); under MPICH an integer, so
/// Rust lets any thread use it, even one shared by all. Either way the type system does
/// not know the MPI thread level: the guards that hold under every MPI are the level MPI
/// granted and `MPI_Is_thread_main` ([`assert_main_thread`]). This wrapper states that
/// one thread owns the communicator, and moves it there under any MPI.
pub struct ThreadComm(pub SimpleCommunicator);

// SAFETY: create a ThreadComm only when MPI granted MPI_THREAD_MULTIPLE, and give each
// to one thread: then MPI allows that thread to call it, and no other thread touches
// its handle (a ThreadComm moves into its thread; it is never shared). Under MPICH the
// communicator is Send and Sync already, and this impl only repeats it.
unsafe impl Send for ThreadComm {}

impl ThreadComm {
    /// The communicator. Inside the thread, call this rather than writing `comm.0`: a
    /// closure that names only the field captures only the field, which under Open MPI is
    /// not `Send`.
    pub fn comm(&self) -> &SimpleCommunicator {
        &self.0
    }
}
// ANCHOR_END: thread_comm

// ANCHOR: funneled_guard
/// Panics, naming `call` and the thread, unless this is the thread that initialised MPI
/// (`MPI_Is_thread_main`). The chapter's given MPI calls start with it: under
/// `MPI_THREAD_FUNNELED` a call from a worker thread is an error MPI itself may not
/// notice.
pub fn assert_main_thread(call: &str) {
    let mut flag = 0;
    // SAFETY: MPI is initialised (every caller runs inside an MPI program) and `flag` is
    // a valid int for MPI to write.
    unsafe { mpi::ffi::MPI_Is_thread_main(&mut flag) };
    if flag == 0 {
        let this = std::thread::current();
        let name = this.name().unwrap_or("(unnamed)");
        panic!(
            "{call} was called from the worker thread {name:?}, not the main thread: under \
             MPI_THREAD_FUNNELED only the thread that initialised MPI may call MPI. Fix: make \
             the MPI call on the main thread and give the worker threads only computation"
        );
    }
}
// ANCHOR_END: funneled_guard
