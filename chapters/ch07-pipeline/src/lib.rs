//! Chapter 7: a pipeline-parallel trainer: a model cut into stages on different ranks,
//! micro-batches flowing through them (GPipe and 1F1B), and data parallelism on top.
//!
//! Check your work with `make check CH=07`; run the labs with `make run CH=07 BIN=...`.

/// The schedule's shape, shared by both halves of the chapter.
pub mod plan;

// --- schedules and stages (ex 7.1, 7.3, 7.4) ---------------------------------------------
// (modules of the schedules half)

// --- the trainer (ex 7.2, 7.5, 7.6) ------------------------------------------------------
// (modules of the trainer half)
