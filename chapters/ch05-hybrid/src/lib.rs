//! Chapter 5: one MPI rank, many threads, one GPU: thread levels, the hybrid halo
//! exchange, and moving data between a GPU and MPI.
//!
//! Check your work with `make check CH=05`; run the labs with `make run CH=05 BIN=...`.

// --- threads and ranks (ex 5.1-5.4) -----------------------------------------------------
// Given (read it, use it): [`threading`] (thread levels, a communicator a thread owns, the
// main-thread check), [`machine`] (cores, CPU affinity, threads per rank), [`bands`] (the
// update of a band of rows), [`given_halo`] (a rank's block and a working exchange), [`halo_graph`] (the
// communicator that exchange runs on),
// [`hybrid_solver`] (the solver built from your parts). Yours: [`levels`] (ex 5.1),
// [`hybrid_step`] (ex 5.2), [`overlap_threads`] (ex 5.3), [`per_thread`] (ex 5.4).
pub mod bands;
pub mod given_halo;
pub mod halo_graph;
pub mod hybrid_solver;
pub mod machine;
pub mod threading;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/levels.rs"
)]
pub mod levels;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/hybrid_step.rs"
)]
pub mod hybrid_step;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/overlap_threads.rs"
)]
pub mod overlap_threads;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch05-hybrid/per_thread.rs"
)]
pub mod per_thread;

// --- GPUs and host staging (ex 5.5-5.7) -------------------------------------------------
// Given: [`gpu_node`] (local rank, GPUs, CUDA-aware MPI), [`stream`] (device<->host
// copies and the host slots; [`host_buf`] and [`copier`] under it, [`staging_trace`]
// its timeline), [`links`] (the costs), [`measure`] (timings for the
// labs), [`overlap_check`] (the pipeline against its parts), [`ipc_path`] (device to
// device between two ranks of a node, CUDA IPC). Yours: [`placement`] (ex 5.5), [`staging`] (ex 5.6), [`staging_model`] (ex 5.7).
pub mod copier;
pub mod gpu_node;
pub mod host_buf;
pub mod ipc_path;
pub mod links;
pub mod measure;
pub mod overlap_check;
pub mod staging_trace;
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
