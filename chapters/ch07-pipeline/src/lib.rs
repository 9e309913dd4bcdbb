//! Chapter 7: a pipeline-parallel trainer: a model cut into stages on different ranks,
//! micro-batches flowing through them (GPipe and 1F1B), and data parallelism on top.
//!
//! Check your work with `make check CH=07`; run the labs with `make run CH=07 BIN=...`.

/// The schedule's shape, shared by both halves of the chapter.
pub mod plan;

// --- schedules and stages (ex 7.1, 7.3, 7.4) ---------------------------------------------
// Given: [`schedule_check`] (the checker: a schedule run on paper by the rule of
// [`plan`], its deadlocks, activations held and bubble), [`timeline`] (text-art
// timelines). Yours: [`stages`] (ex 7.1), [`schedules`] (ex 7.3 GPipe, ex 7.4 1F1B).
pub mod schedule_check;
pub mod timeline;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/stages.rs"
)]
pub mod stages;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/schedules.rs"
)]
pub mod schedules;

// --- the trainer (ex 7.2, 7.5, 7.6) ------------------------------------------------------
// (modules of the trainer half)
