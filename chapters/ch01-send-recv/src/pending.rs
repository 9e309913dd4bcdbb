//! Why a send buffer cannot be reused before its request completes, and how Rust says so.
//!
//! A non-blocking send (`MPI_Isend`) returns at once; MPI reads the buffer *later*, at
//! some moment before the request completes. Writing to the buffer in between changes
//! what the receiver gets, or not, depending on timing: a silent race in C. In rsmpi a
//! request borrows its buffer for the lifetime of its `scope`, so the compiler refuses
//! the write. The doctest below is compiled by `cargo test` and must FAIL to compile
//! (error E0506: assignment to a borrowed value):
//!
//! ```compile_fail,E0506
//! use mpi::traits::*;
//! // ANCHOR: reuse_too_early
//! fn send_then_overwrite(world: &mpi::topology::SimpleCommunicator) {
//!     let mut halo = vec![1.0f64; 1024];
//!     let right = world.process_at_rank((world.rank() + 1) % world.size());
//!     mpi::request::scope(|scope| {
//!         let request = right.immediate_send(scope, &halo[..]);
//!         halo[0] = 2.0; // error[E0506]: `halo` is still borrowed by `request`
//!         request.wait();
//!     });
//! }
//! // ANCHOR_END: reuse_too_early
//! ```
//!
//! The fix is to write after `request.wait()` (or after the scope ends): completion of
//! a send means "the buffer is yours again", nothing more. It does not mean the message
//! has arrived; only a matching receive's completion says that.
