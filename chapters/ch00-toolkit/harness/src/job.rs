//! The job as a whole: which rank this is, which thread may call MPI, and how to end
//! every rank at once from any thread. The lowest layer of the harness: it uses no other
//! module of it.

use mpi::environment::Threading;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;
use std::thread::ThreadId;

/// This process's rank in `MPI_COMM_WORLD`, once MPI is initialised (-1 before).
static WORLD_RANK: AtomicI32 = AtomicI32::new(-1);
/// The thread level the library granted (as `Threading as i32`; -1 before MPI starts).
static GRANTED: AtomicI32 = AtomicI32::new(-1);
/// The thread that initialised MPI: MPI's "main thread".
static MAIN_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Notes what `MPI_Init_thread` gave this process (called once, by the thread that
/// initialised MPI).
pub(crate) fn started(rank: i32, granted: Threading) {
    let _ = MAIN_THREAD.set(std::thread::current().id());
    GRANTED.store(level_number(granted), Ordering::SeqCst);
    WORLD_RANK.store(rank, Ordering::SeqCst);
}

/// The communicator a test's body runs on, when it is not `MPI_COMM_WORLD` itself.
struct TestWorld(mpi::ffi::MPI_Comm);
// SAFETY: a handle, only passed to local MPI queries (compare, group) by the thread that
// notes a call.
unsafe impl Send for TestWorld {}
static TEST_WORLD: std::sync::Mutex<Option<TestWorld>> = std::sync::Mutex::new(None);

/// Makes `comm` the test's world (`None`: `MPI_COMM_WORLD` again). A test that runs several
/// rank counts in one launch gives each its own communicator ([`crate::sizes`]), which
/// its body knows as its world: the flight recorder names it `WORLD`, the arrival
/// recorder records its collectives. Its ranks are the first ranks of `MPI_COMM_WORLD`, so
/// the rank numbers the reports give stay the same.
pub fn set_test_world(comm: Option<mpi::ffi::MPI_Comm>) {
    *TEST_WORLD.lock().unwrap_or_else(|e| e.into_inner()) = comm.map(TestWorld);
}

/// The test's world: the communicator [`set_test_world`] gave, else `MPI_COMM_WORLD`.
pub fn test_world() -> mpi::ffi::MPI_Comm {
    match TEST_WORLD
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        Some(world) => world.0,
        // SAFETY: reading the library's predefined handle.
        None => unsafe { mpi::ffi::RSMPI_COMM_WORLD },
    }
}

/// `MPI_THREAD_FUNNELED` and friends, as the standard names them.
pub fn level_name(level: Threading) -> &'static str {
    match level {
        Threading::Single => "MPI_THREAD_SINGLE",
        Threading::Funneled => "MPI_THREAD_FUNNELED",
        Threading::Serialized => "MPI_THREAD_SERIALIZED",
        Threading::Multiple => "MPI_THREAD_MULTIPLE",
    }
}

fn level_number(level: Threading) -> i32 {
    match level {
        Threading::Single => 0,
        Threading::Funneled => 1,
        Threading::Serialized => 2,
        Threading::Multiple => 3,
    }
}

/// The thread level the library granted, once MPI has started.
pub fn granted_level() -> Option<Threading> {
    match GRANTED.load(Ordering::SeqCst) {
        0 => Some(Threading::Single),
        1 => Some(Threading::Funneled),
        2 => Some(Threading::Serialized),
        3 => Some(Threading::Multiple),
        _ => None,
    }
}

/// True on the thread that initialised MPI.
pub fn on_main_thread() -> bool {
    MAIN_THREAD.get() == Some(&std::thread::current().id())
}

/// The rank of this process in `MPI_COMM_WORLD`, or `None` before MPI starts.
pub fn world_rank() -> Option<i32> {
    let r = WORLD_RANK.load(Ordering::SeqCst);
    (r >= 0).then_some(r)
}

/// Prints one line to stderr in a single write, so that the launcher's rank tags and the
/// other ranks' output cannot cut it in pieces.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// Ends the whole job at once, from any thread of any rank (panics, the watchdog, MPI
/// errors). Calls `MPI_Abort` only where the thread level allows it; elsewhere the process
/// exits and the launcher, seeing a rank end without `MPI_Finalize`, ends the others.
pub fn abort_job(code: i32) -> ! {
    end_job(code, true)
}

/// Ends the whole job from inside a failing MPI call (an MPI error handler). Under
/// `MPI_THREAD_MULTIPLE` the library may hold its own lock there: MPICH then fails an
/// assertion in `MPI_Abort` and prints a backtrace per rank, so this exits without it
/// (the launcher ends the other ranks); at the other levels it is [`abort_job`].
pub fn abort_job_inside_mpi(code: i32) -> ! {
    end_job(code, granted_level() != Some(Threading::Multiple))
}

fn end_job(code: i32, may_abort: bool) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // The launcher forwards our output asynchronously; MPICH's abort can kill the
    // forwarder before it has read our last lines. A moment's grace keeps them.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let may_call_mpi = on_main_thread() || granted_level() == Some(Threading::Multiple);
    if may_abort
        && may_call_mpi
        && mpi::environment::is_initialized()
        && !mpi::environment::is_finalized()
    {
        // SAFETY: MPI is initialised and not finalised, and this thread may call MPI.
        unsafe { mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, code) };
    }
    // SAFETY: ends this process at once, without running exit handlers that could call
    // MPI from the wrong thread.
    unsafe { libc::_exit(code) }
}
