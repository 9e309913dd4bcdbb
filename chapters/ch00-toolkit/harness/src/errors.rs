//! MPI errors reach the learner: which rank, which call, what the error means, which case.
//!
//! By default an MPI error is fatal (`MPI_ERRORS_ARE_FATAL`): the library kills the job,
//! and what reaches the terminal is often an internal line of the launcher, not the cause.
//! [`install`] gives `MPI_COMM_WORLD` and `MPI_COMM_SELF` an error handler of our own
//! (communicators made from them inherit it). It runs inside the failing call, on the
//! calling thread, prints one line a learner can act on, then ends the job.

use mpi::ffi::{self, MPI_Comm};
use std::os::raw::{c_char, c_int};

/// What an MPI error class means for a learner's code.
pub fn meaning(class: u32) -> &'static str {
    use mpi::ffi::*;
    match class {
        MPI_ERR_TRUNCATE => {
            "your receive buffer is smaller than the message that arrived: the receive's \
             count (or type) must hold everything the matching send sends"
        }
        MPI_ERR_RANK => {
            "a rank outside 0..size-1: check the neighbour arithmetic (wrap with % size)"
        }
        MPI_ERR_ROOT => "a root outside 0..size-1, or not the same root on every rank",
        MPI_ERR_TAG => "a tag that is negative or above MPI_TAG_UB",
        MPI_ERR_COUNT => "a negative count (or one too large for an i32)",
        MPI_ERR_BUFFER => "an invalid buffer (null pointer?)",
        MPI_ERR_TYPE => "an invalid or uncommitted datatype",
        MPI_ERR_COMM => "an invalid communicator (already freed? MPI_COMM_NULL?)",
        MPI_ERR_OP => "an invalid reduction operation for this datatype",
        MPI_ERR_REQUEST => "an invalid request (already completed or freed?)",
        MPI_ERR_TOPOLOGY | MPI_ERR_DIMS => "a topology whose dimensions do not fit the ranks",
        MPI_ERR_ARG => "an invalid argument",
        MPI_ERR_IN_STATUS => "one of several requests failed (see its status)",
        _ => "see the library's text",
    }
}

/// The library's class name and text for an error code.
fn describe(code: c_int) -> (u32, String) {
    let mut class: c_int = 0;
    let mut text = vec![0 as c_char; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: local queries on an error code; `text` has MPI_MAX_ERROR_STRING + 1 bytes.
    unsafe {
        ffi::MPI_Error_class(code, &mut class);
        ffi::MPI_Error_string(code, text.as_mut_ptr(), &mut len);
    }
    let bytes: Vec<u8> = text[..len.max(0) as usize]
        .iter()
        .map(|&c| c as u8)
        .collect();
    (
        class as u32,
        String::from_utf8_lossy(&bytes).trim().to_string(),
    )
}

/// Our handler: called by the library inside the failing MPI call.
unsafe extern "C" fn on_error(_comm: *mut MPI_Comm, code: *mut c_int) {
    // SAFETY: the library passes a valid pointer to the error code.
    let code = unsafe { *code };
    let (class, text) = describe(code);
    let rank = crate::job::world_rank().unwrap_or(-1);
    let call = match crate::intercept::my_call() {
        Some(c) if c.detail.is_empty() => format!("{}()", c.name),
        Some(c) => format!("{}({})", c.name, c.detail),
        None => "an MPI call".to_string(),
    };
    crate::job::say(&format!(
        "rank {rank}: {call} failed: {text}: {}{}{}",
        meaning(class),
        cross_talk(class),
        crate::watchdog::case_context()
    ));
    crate::job::abort_job_inside_mpi(3);
}

/// A truncated message on a thread other than the main one, under MPI_THREAD_MULTIPLE:
/// the classic cause is threads that share a communicator, said in full; else nothing.
fn cross_talk(class: u32) -> String {
    use mpi::environment::Threading;
    let multiple = crate::job::granted_level() == Some(Threading::Multiple);
    if class != ffi::MPI_ERR_TRUNCATE || !multiple || crate::job::on_main_thread() {
        return String::new();
    }
    let this = std::thread::current();
    let name = this.name().unwrap_or("unnamed");
    format!(
        ". The receive ran on the thread {name:?}, not the main thread: when threads of one \
         rank send and receive on one communicator with one tag, their messages cross-talk: \
         MPI matches each receive with whichever message arrives first, so two threads' \
         messages matched each other's receives, and this one was longer than the buffer. \
         Fix: give each thread a communicator of its own (duplicate the communicator once \
         per thread, on the main thread) or a tag of its own"
    )
}

/// Installs the handler on `MPI_COMM_WORLD` and `MPI_COMM_SELF`.
pub(crate) fn install() {
    type Handler = unsafe extern "C" fn(*mut MPI_Comm, *mut c_int);
    let handler: Handler = on_error;
    // SAFETY: the C type is variadic (`MPI_Comm *, int *, ...`); MPI passes exactly the two
    // fixed arguments, which a two-argument C function receives the same way on the
    // platforms MPI runs on (the extra arguments are unused by every implementation).
    let function: ffi::MPI_Comm_errhandler_function = unsafe { std::mem::transmute(handler) };
    // SAFETY: a handle is a pointer (Open MPI) or an integer (MPICH): zero is valid for both
    // as a value to be overwritten.
    let mut errhandler: ffi::MPI_Errhandler = unsafe { std::mem::zeroed() };
    // SAFETY: creates a handler from our function, then attaches it to two valid
    // predefined communicators; MPI is initialised (called from `start_rank`).
    unsafe {
        ffi::MPI_Comm_create_errhandler(function, &mut errhandler);
        ffi::MPI_Comm_set_errhandler(ffi::RSMPI_COMM_WORLD, errhandler);
        ffi::MPI_Comm_set_errhandler(ffi::RSMPI_COMM_SELF, errhandler);
    }
}
