//! Waiting without spinning, for programs that time something on a machine with fewer
//! cores than ranks.
//!
//! A rank blocked in `MPI_Barrier` or `MPI_Recv` keeps polling the network: it spins on a
//! core. When there are more ranks than cores, the ranks that only wait take cores from
//! the two ranks being timed, and every message between those two waits for the scheduler
//! to run its receiver: a few milliseconds per message. Open MPI yields the core while it
//! polls when its launcher was told to oversubscribe (ours always is); MPICH (ch4, with
//! UCX, as Debian builds it) spins at full speed. Measured here under MPICH, 3 ranks on
//! 2 cores, a 100 kB ping-pong between ranks 0 and 2 while rank 1 waited in
//! `MPI_Barrier`: 4 to 8 ms per round trip, against 40 µs when rank 1 waited in
//! [`barrier`].
//!
//! [`barrier`] is the barrier for such programs: `MPI_Ibarrier`, then `MPI_Test` with a
//! short sleep between tests, so a waiting rank costs next to no CPU. A rank waiting in it
//! is named by the watchdog like one blocked in `MPI_Barrier`. [`wait`] waits the same way
//! for any non-blocking request (e.g. an `MPI_Iallreduce` that a straggler is late for).

use crate::intercept::{enter, Kind};
use mpi::request::{Request, Scope};
use mpi::traits::*;
use std::time::Duration;

/// How long a waiting rank sleeps between two tests of its barrier: short next to the
/// milliseconds a timed pair takes, long enough that a sleeping rank costs no core.
pub const NAP: Duration = Duration::from_micros(50);

static QUIET_BARRIER: Kind = Kind {
    name: "MPI_Ibarrier + MPI_Test (toolkit::idle::barrier)",
    describe: |_| String::new(),
};

/// A barrier that sleeps while it waits (see the module's page). Collective: every rank
/// of `comm` calls it, in the same order as its other collectives on `comm`.
pub fn barrier<C: Communicator>(comm: &C) {
    enter(
        &QUIET_BARRIER,
        || [0; 4],
        || test_until_done(comm.immediate_barrier()),
    )
}

static QUIET_WAIT: Kind = Kind {
    name: "MPI_Test on a non-blocking request (toolkit::idle::wait)",
    describe: |_| String::new(),
};

/// Waits for `request` without spinning: `MPI_Test`, then a [`NAP`], until it completes.
pub fn wait<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) {
    enter(&QUIET_WAIT, || [0; 4], || test_until_done(request))
}

fn test_until_done<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>) {
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        std::thread::sleep(NAP);
    }
}
