//! Chapter 4: the halo exchange on a 2-D domain decomposition, taught through an explicit
//! solver of the heat equation.
//!
//! Given code (read it, use it):
//! - [`field`]: a rank's block with one layer of ghost cells;
//! - [`stencil`]: the 5-point update, split into interior and boundary, and the residual;
//!   [`kernels`]: the same update built for AVX, and with streaming stores;
//! - [`problem`]: the heat problem and the serial solver (the reference, bit for bit);
//! - [`topology`]: the process grid (`MPI_Dims_create`), the blocks, the Cartesian
//!   communicator;
//! - [`halo`]: sides, tags, and the buffers that travel;
//! - [`solver`]: the parallel solver built from your parts; [`heatmap`]: the picture.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`neighbours`] (ex 4.1), [`pack`] (ex 4.2), [`exchange`] (ex 4.3, 4.4), [`overlap`]
//! (ex 4.5), [`residual`] (ex 4.6), [`gather`] (ex 4.7).
//!
//! Check your work with `make check CH=04`; run the lab with `make run CH=04`.

pub mod field;
pub mod halo;
pub mod heatmap;
pub mod kernels;
pub mod problem;
pub mod solver;
pub mod stencil;
pub mod topology;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/neighbours.rs"
)]
pub mod neighbours;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/pack.rs"
)]
pub mod pack;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/exchange.rs"
)]
pub mod exchange;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/overlap.rs"
)]
pub mod overlap;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/residual.rs"
)]
pub mod residual;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch04-halo-exchange/gather.rs"
)]
pub mod gather;
