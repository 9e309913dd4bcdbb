//! Given: `MPI_Neighbor_alltoallv` on a 2-D Cartesian communicator, as a safe function.
//!
//! A Cartesian communicator knows each rank's neighbours, in a fixed order: along axis 0
//! the one at coordinate - 1 then the one at + 1, then the same along axis 1: north,
//! south, west, east, the order of chapter 4's `Side`. Block `k` of the send buffer goes
//! to neighbour `k`; block `k` of the receive buffer comes from neighbour `k`, which sent
//! it in the opposite direction. A missing neighbour (`MPI_PROC_NULL`) sends and receives
//! nothing: its blocks are left alone.
//!
//! One case the libraries disagree on: a periodic axis of one or two ranks, where both
//! neighbours along it are the same rank, so one pair of ranks carries two messages. MPI
//! 4.1 (section 8.6) says which block fills which: what a rank sent towards + 1 arrives in
//! the receiver's block from - 1. Open MPI 4.1 does that; MPICH 4.0 pairs them in the order
//! they were posted, so the two blocks of that axis arrive swapped. [`pairs_by_direction`]
//! finds out which this MPI does, once, on `MPI_COMM_SELF` (no other rank involved), and
//! [`alltoallv`] swaps the two blocks back where the library paired them by order.

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::CartesianCommunicator;
use std::sync::OnceLock;

/// The blocks of one side of the exchange: `counts[k]` doubles at `displs[k]` of `buf`.
pub struct Blocks<'b, B: ?Sized> {
    /// The buffer holding every block.
    pub buf: &'b B,
    /// Doubles per neighbour, in the communicator's neighbour order.
    pub counts: &'b [i32],
    /// Where each neighbour's block starts in `buf`, in doubles.
    pub displs: &'b [i32],
}

/// Sends block `k` of `send` to neighbour `k` of `cart` and receives block `k` of `recv`
/// from it, in one `MPI_Neighbor_alltoallv` (collective over `cart`). Panics with a
/// one-line reason on counts or displacements that are not one per neighbour, or blocks
/// outside their buffer.
pub fn alltoallv(
    cart: &CartesianCommunicator,
    send: Blocks<[f64]>,
    recv_buf: &mut [f64],
    recv_counts: &[i32],
    recv_displs: &[i32],
) {
    let layout = cart.get_layout();
    let neighbours = 2 * layout.dims.len();
    check(neighbours, send.buf.len(), send.counts, send.displs, "send");
    check(
        neighbours,
        recv_buf.len(),
        recv_counts,
        recv_displs,
        "receive",
    );
    // SAFETY: `check` proved every block of each side inside its buffer and one block per
    // neighbour of `cart`; the send and receive buffers are distinct Rust borrows, so they
    // do not overlap.
    let rc = unsafe {
        ffi::MPI_Neighbor_alltoallv(
            send.buf.as_ptr().cast(),
            send.counts.as_ptr(),
            send.displs.as_ptr(),
            ffi::RSMPI_DOUBLE,
            recv_buf.as_mut_ptr().cast(),
            recv_counts.as_ptr(),
            recv_displs.as_ptr(),
            ffi::RSMPI_DOUBLE,
            cart.as_raw(),
        )
    };
    assert_eq!(rc, 0, "MPI_Neighbor_alltoallv failed ({rc})");
    if pairs_by_direction() {
        return;
    }
    for axis in 0..layout.dims.len() {
        if layout.periods[axis] && layout.dims[axis] <= 2 {
            swap_blocks(recv_buf, recv_counts, recv_displs, 2 * axis);
        }
    }
}

/// Refuses counts and displacements that are not one per neighbour, or a block that
/// reaches past the buffer.
fn check(neighbours: usize, len: usize, counts: &[i32], displs: &[i32], side: &str) {
    assert!(
        counts.len() == neighbours && displs.len() == neighbours,
        "neighbourhood::alltoallv: {} {side} counts and {} displacements, but this \
         Cartesian communicator gives every rank {neighbours} neighbours (north, south, \
         west, east): one count and one displacement per neighbour, missing ones included",
        counts.len(),
        displs.len()
    );
    for (k, (&n, &at)) in counts.iter().zip(displs).enumerate() {
        assert!(
            n >= 0 && at >= 0 && (at + n) as usize <= len,
            "neighbourhood::alltoallv: {side} block {k} is {n} doubles at {at}, past the \
             end of its buffer of {len}: counts and displacements count doubles (elements \
             of MPI_DOUBLE), not bytes, from the buffer's start"
        );
    }
}

/// Swaps receive blocks `k` and `k + 1` (the two neighbours of one axis).
fn swap_blocks(buf: &mut [f64], counts: &[i32], displs: &[i32], k: usize) {
    let block = |k: usize| displs[k] as usize..(displs[k] + counts[k]) as usize;
    let (a, b) = (block(k), block(k + 1));
    let (first, second) = (buf[a.clone()].to_vec(), buf[b.clone()].to_vec());
    if first.len() == second.len() {
        buf[a].copy_from_slice(&second);
        buf[b].copy_from_slice(&first);
    }
}

/// Does this MPI fill, along a periodic axis whose two neighbours are one rank, the block
/// from - 1 with what was sent towards + 1, as MPI 4.1 says? Found once: a periodic 1-D
/// Cartesian communicator over `MPI_COMM_SELF`, where both neighbours are this rank.
pub fn pairs_by_direction() -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    *ANSWER.get_or_init(|| {
        let (dims, periods) = ([1], [1]);
        // SAFETY: a handle to be written by MPI_Cart_create.
        let mut comm: ffi::MPI_Comm = unsafe { ffi::RSMPI_COMM_NULL };
        let (send, mut recv) = ([1.0f64, 2.0], [0.0f64; 2]);
        let (counts, displs) = ([1, 1], [0, 1]);
        // SAFETY: a Cartesian communicator over MPI_COMM_SELF (local to this process), one
        // collective on it with blocks inside their 2-double buffers, then it is freed.
        unsafe {
            let self_comm = ffi::RSMPI_COMM_SELF;
            ffi::MPI_Cart_create(self_comm, 1, dims.as_ptr(), periods.as_ptr(), 0, &mut comm);
            let (s, r, d) = (
                send.as_ptr().cast(),
                recv.as_mut_ptr().cast(),
                ffi::RSMPI_DOUBLE,
            );
            let (n, at) = (counts.as_ptr(), displs.as_ptr());
            ffi::MPI_Neighbor_alltoallv(s, n, at, d, r, n, at, d, comm);
            ffi::MPI_Comm_free(&mut comm);
        }
        recv == [2.0, 1.0]
    })
}
