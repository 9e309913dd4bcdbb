//! Chapter 5: one MPI rank, many threads, one GPU: thread levels, the hybrid halo
//! exchange, and moving data between a GPU and MPI.
//!
//! Check your work with `make check CH=05`; run the labs with `make run CH=05 BIN=...`.

// --- threads and ranks (ex 5.1-5.4) -----------------------------------------------------
// (modules of the threads half)

// --- GPUs and host staging (ex 5.5-5.7) -------------------------------------------------
// (modules of the GPU half)
