//! Given: persistent requests as a safe type: [`Plan`] owns the halo buffers and the
//! requests made on them, and a started exchange is a guard that waits before the buffers
//! can be touched again.
//!
//! `MPI_Send_init(buf, ...)` does not send: it records a message (buffer, count, partner,
//! tag) and returns a request that `MPI_Start`/`MPI_Startall` starts as often as wanted,
//! each start an `MPI_Isend` without setting it up again. In C the buffer's address is
//! kept inside MPI for the request's whole life: free or move the buffer and a later start
//! sends garbage. Here the [`Plan`] owns the buffers (a [`Halo`], never handed out
//! mutably, so a `Vec` is never reallocated), [`Plan::start`] returns a [`Started`] that
//! borrows the plan until its requests are complete (waited in `wait`, or in its `Drop` on
//! a panic), and dropping the plan frees the requests (`MPI_Request_free`) while they are
//! inactive. The borrow checker then refuses to pack or unpack during an exchange, and
//! to free the buffers while MPI holds them.

use ch04::field::Field;
use ch04::halo::{Halo, Side};
use ch04::topology::Neighbours;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{CartesianCommunicator, Rank};
use mpi::Tag;
use std::marker::PhantomData;

// ANCHOR: plan
/// Persistent sends and receives over the buffers of one [`Halo`], on one communicator.
pub struct Plan<'c> {
    halo: Halo,
    requests: Vec<ffi::MPI_Request>,
    comm: ffi::MPI_Comm,
    _cart: PhantomData<&'c CartesianCommunicator>,
}

/// A started exchange: the plan's requests are in flight until [`Started::wait`] (or the
/// guard's drop) completes them; the plan cannot be used meanwhile.
#[must_use = "a started exchange must be waited for"]
pub struct Started<'p, 'c> {
    plan: &'p mut Plan<'c>,
}
// ANCHOR_END: plan

impl<'c> Plan<'c> {
    /// A plan with no requests yet, owning `halo`'s buffers, on `cart`.
    pub fn new(cart: &'c CartesianCommunicator, halo: Halo) -> Plan<'c> {
        Plan {
            halo,
            requests: vec![],
            comm: cart.as_raw(),
            _cart: PhantomData,
        }
    }

    /// Records a send of `halo.send[side]` to `to` with `tag` (`MPI_Send_init`): it travels
    /// at every [`Plan::start`], from the buffer as it is then.
    pub fn send_init(&mut self, side: Side, to: Rank, tag: Tag) {
        let buf = &self.halo.send[side as usize];
        let mut request = null_request();
        // SAFETY: the buffer is owned by `self` and never reallocated (the halo is never
        // handed out mutably); it outlives the request, which `Drop` frees first.
        let rc = unsafe {
            let (ptr, n) = (buf.as_ptr().cast(), buf.len() as i32);
            ffi::MPI_Send_init(ptr, n, ffi::RSMPI_DOUBLE, to, tag, self.comm, &mut request)
        };
        assert_eq!(rc, 0, "MPI_Send_init failed ({rc})");
        self.requests.push(request);
    }

    /// Records a receive into `halo.recv[side]` from `from` with `tag` (`MPI_Recv_init`).
    pub fn recv_init(&mut self, side: Side, from: Rank, tag: Tag) {
        let buf = &mut self.halo.recv[side as usize];
        let mut request = null_request();
        // SAFETY: as in `send_init`; MPI writes the buffer only between a start and the
        // wait, while `Started` holds the plan borrowed.
        let rc = unsafe {
            let (ptr, n) = (buf.as_mut_ptr().cast(), buf.len() as i32);
            ffi::MPI_Recv_init(
                ptr,
                n,
                ffi::RSMPI_DOUBLE,
                from,
                tag,
                self.comm,
                &mut request,
            )
        };
        assert_eq!(rc, 0, "MPI_Recv_init failed ({rc})");
        self.requests.push(request);
    }

    /// How many requests the plan holds.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// True when the plan holds no request.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Copies the owned edges of `f` into the send buffers (chapter 4's packing).
    pub fn pack_from(&mut self, f: &Field) {
        self.halo.pack_from(f);
    }

    /// Copies the received edges into the ghost layer of `f` where there is a neighbour.
    pub fn unpack_into(&self, f: &mut Field, nb: &Neighbours) {
        self.halo.unpack_into(f, nb);
    }

    /// Starts every request (`MPI_Startall`); the returned guard must be waited for.
    pub fn start(&mut self) -> Started<'_, 'c> {
        if !self.requests.is_empty() {
            let n = self.requests.len() as i32;
            // SAFETY: every request is a valid, inactive persistent request of this plan.
            let rc = unsafe { ffi::MPI_Startall(n, self.requests.as_mut_ptr()) };
            assert_eq!(rc, 0, "MPI_Startall failed ({rc})");
        }
        Started { plan: self }
    }
}

impl Started<'_, '_> {
    /// Waits until every message of the exchange is complete (`MPI_Waitall`); the
    /// requests become inactive again, ready for the next start.
    pub fn wait(self) {} // the drop below does the waiting
}

impl Drop for Started<'_, '_> {
    fn drop(&mut self) {
        let requests = &mut self.plan.requests;
        if requests.is_empty() {
            return;
        }
        // SAFETY: the requests were started by `Plan::start`; waiting on persistent
        // requests leaves them allocated and inactive.
        let rc = unsafe {
            let n = requests.len() as i32;
            ffi::MPI_Waitall(n, requests.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE)
        };
        assert_eq!(rc, 0, "MPI_Waitall failed ({rc})");
    }
}

impl Drop for Plan<'_> {
    fn drop(&mut self) {
        for request in &mut self.requests {
            // SAFETY: an inactive persistent request (every `Started` has been dropped,
            // which waited), freed once.
            unsafe { ffi::MPI_Request_free(request) };
        }
    }
}

/// A request handle to be written by MPI.
fn null_request() -> ffi::MPI_Request {
    // SAFETY: reads a constant the MPI library exports.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}
