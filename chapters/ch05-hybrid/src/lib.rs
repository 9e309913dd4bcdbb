//! Chapter 5: one MPI rank, many threads, one GPU: thread levels, the hybrid halo
//! exchange, and moving data between a GPU and MPI.
//!
//! Check your work with `make check CH=05`; run the labs with `make run CH=05 BIN=...`.

// --- threads and ranks (ex 5.1-5.4) -----------------------------------------------------
// (modules of the threads half)

// --- GPUs and host staging (ex 5.5-5.7) -------------------------------------------------
// Given: [`gpu_node`] (local rank, GPUs, CUDA-aware MPI), [`stream`] (device<->host
// copies and the host slots), [`links`] (the costs), [`measure`] (timings for the
// labs). Yours: [`placement`] (ex 5.5), [`staging`] (ex 5.6), [`staging_model`] (ex 5.7).
pub mod gpu_node;
pub mod links;
pub mod measure;
pub mod stream;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/placement.rs"
)]
pub mod placement;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/staging.rs"
)]
pub mod staging;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/staging_model.rs"
)]
pub mod staging_model;
