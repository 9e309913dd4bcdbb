//! Chapter 16: the rest of MPI, on chapter 4's heat equation. The same halo exchange four
//! more ways: with derived datatypes (a column sent where it lies, no packing), with
//! persistent requests (the exchange's messages set up once, started every step), as one
//! neighbourhood collective on the Cartesian communicator, and one-sided (each rank puts
//! its edges into its neighbours' windows). Each is checked against the serial solver bit
//! for bit; the lab times them side by side.
//!
//! Given code (read it, use it):
//! - [`grid`]: a rank's block, its neighbours, and the time loop every exchange runs in;
//! - [`cells`]: the safe wrapper of `MPI_Sendrecv` over cells of a field (rows, and
//!   columns described by a datatype), which refuses what would be undefined in C;
//! - [`requests`]: the safe wrapper of persistent requests (`MPI_Send_init`,
//!   `MPI_Recv_init`, `MPI_Startall`, `MPI_Waitall`, `MPI_Request_free`);
//! - [`neighbourhood`]: the safe wrapper of `MPI_Neighbor_alltoallv` on a Cartesian
//!   communicator;
//! - [`window`]: an MPI window and its epochs (fence; post-start-complete-wait) as safe
//!   types; [`inbox`]: where each edge lands in a neighbour's window;
//! - [`file`]: a file shared by the ranks and a file view, as safe types (MPI-IO);
//!   [`heat_file`]: the heat field as one file, saved atomically, read at any rank count;
//! - [`collective_init`]: MPI 4's persistent collectives, found in the installed MPI;
//! - [`exchanges`]: the exchanges side by side (chapter 4's packed one among them).
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`datatypes`] (ex 16.1), [`persistent`] (ex 16.2), [`neighbour_halo`] (ex 16.3),
//! [`rma`] (ex 16.4), [`io`] (ex 16.5).
//!
//! Check your work with `make check CH=16`; run the lab with `make run CH=16`.

pub mod cells;
pub mod collective_init;
pub mod exchanges;
pub mod file;
pub mod grid;
pub mod heat_file;
pub mod inbox;
pub mod neighbourhood;
pub mod requests;
pub mod window;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch16-rest-of-mpi/datatypes.rs"
)]
pub mod datatypes;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch16-rest-of-mpi/persistent.rs"
)]
pub mod persistent;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch16-rest-of-mpi/neighbour_halo.rs"
)]
pub mod neighbour_halo;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch16-rest-of-mpi/rma.rs"
)]
pub mod rma;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch16-rest-of-mpi/io.rs"
)]
pub mod io;
