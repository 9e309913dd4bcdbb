//! A tally of the collectives this thread called: which MPI function and how many bytes
//! each rank contributed, in program order.
//!
//! Where [`crate::trace`] records point-to-point messages, this counts collectives:
//! chapter 9 checks that a tensor-parallel block calls MPI_Allreduce exactly twice
//! forward and twice backward, and its lab prints the bytes against the formula. The PMPI
//! wrappers ([`crate::wrappers`]) feed it; it costs one load per call while off (the
//! default).
//!
//! ```ignore
//! toolkit::tally::start();
//! let y = block.forward(&x);
//! let calls = toolkit::tally::stop(); // e.g. [MPI_Allreduce 2048 bytes, MPI_Allreduce ...]
//! ```

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// One collective call as this thread made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Collective {
    /// The MPI function, e.g. `"MPI_Allreduce"`.
    pub name: &'static str,
    /// The bytes this rank passed in (its send buffer's size).
    pub bytes: i64,
}

static COUNTING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static LOG: RefCell<Vec<Collective>> = const { RefCell::new(Vec::new()) };
}

/// Starts the tally (for every thread; each keeps its own), with an empty tally here.
pub fn start() {
    LOG.with(|log| log.borrow_mut().clear());
    COUNTING.store(true, Ordering::Relaxed);
}

/// Stops the tally and returns this thread's collectives since [`start`], in order.
pub fn stop() -> Vec<Collective> {
    COUNTING.store(false, Ordering::Relaxed);
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// The calls of `log` made to `name` (e.g. `"MPI_Allreduce"`): how many, and their bytes
/// in all.
pub fn count(log: &[Collective], name: &str) -> (usize, i64) {
    let calls = log.iter().filter(|c| c.name == name);
    calls.fold((0, 0), |(n, b), c| (n + 1, b + c.bytes))
}

/// Notes one collective while the tally is on (the wrappers call it before the library).
pub(crate) fn note(name: &'static str, bytes: i64) {
    if COUNTING.load(Ordering::Relaxed) {
        LOG.with(|log| log.borrow_mut().push(Collective { name, bytes }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_calls_between_start_and_stop_are_counted() {
        note("MPI_Allreduce", 8); // before start: not counted
        start();
        note("MPI_Allreduce", 16);
        note("MPI_Allgather", 4);
        note("MPI_Allreduce", 32);
        let log = stop();
        note("MPI_Allreduce", 64); // after stop: not counted
        assert_eq!(log.len(), 3, "{log:?}");
        assert_eq!(count(&log, "MPI_Allreduce"), (2, 48));
        assert_eq!(count(&log, "MPI_Allgather"), (1, 4));
        assert_eq!(count(&log, "MPI_Bcast"), (0, 0));
        assert!(stop().is_empty(), "a second stop returns nothing new");
    }
}
