//! Chapter 7: a pipeline-parallel trainer: a model cut into stages on different ranks,
//! micro-batches flowing through them (GPipe, 1F1B, interleaved 1F1B, ZB-H1), and data
//! parallelism on top.
//!
//! Check your work with `make check CH=07`; run the labs with `make run CH=07 BIN=...`.

/// The schedule's shape, shared by both halves of the chapter.
pub mod plan;

// --- schedules and stages (ex 7.1, 7.3, 7.4) ---------------------------------------------
// Given: [`schedule_check`] (the checker: a schedule run on paper by the rule of
// [`plan`], its deadlocks, activations held and bubble), [`timeline`] (text-art
// timelines). Yours: [`stages`] (ex 7.1), [`schedules`] (ex 7.3 GPipe, ex 7.4 1F1B).
pub mod schedule_check;
/// Sends completed at the next receive: the rule, checked on paper.
pub mod send_check;
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
// Given (read it, use it): [`wire`] (f64 copies between tensors and MPI buffers, the
// transfer pair), [`addition`] (the task), [`stage_model`] (the model cut into stages),
// [`greedy`] (reference schedules by simulation), [`choose`] (the trainer's schedule),
// [`recompute`] (what a forward keeps for its backward), [`heap`] (heap bytes in use),
// [`optim`] (the trainer kit's optimizers), [`spans`] (timing spans, Perfetto and SVG
// timelines), [`pipe_config`] (the flags: the kit's shared ones and the pipeline's),
// [`pipe_ckpt`] (per-stage checkpoints in the kit's container), [`pipe_train`] (the
// trainer) and [`train_loop`] (its loop, shared with [`chunked_train`]), [`pinned`] (a GPU
// tensor's pinned staging), [`transport`], [`node_link`], [`shm_window`] and
// [`ipc_slots`] (`--transport`: the node-local transport). Yours: [`transfer`] (ex 7.2),
// [`executor`] (ex 7.5), [`grid`] (ex 7.6).
pub mod addition;
pub mod choose;
pub mod greedy;
pub mod heap;
/// CUDA IPC slots of the node-local transport (GPUs).
pub mod ipc_slots;
/// How many micro-batches: a model of a step from one micro-batch's costs.
pub mod micro_model;
/// The node-local transport's protocol: slots, doorbells, acks (`--transport shm|ipc`).
pub mod node_link;
pub use trainer_kit::optim;
pub mod pinned;
pub mod pipe_ckpt;
pub mod pipe_config;
pub mod pipe_train;
pub mod recompute;
/// Shared-memory window slots of the node-local transport (CPUs).
pub mod shm_window;
pub mod spans;
pub mod stage_model;
/// What both trainers share: the loop, the evaluation, the gathered timeline.
pub mod train_loop;
/// `--transport`: which way micro-batches move.
pub mod transport;
pub mod wire;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/transfer.rs"
)]
pub mod transfer;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/executor.rs"
)]
pub mod executor;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/grid.rs"
)]
pub mod grid;

// --- after 1F1B: interleaved stages and split backwards (ex 7.7, 7.8, 7.9) --------------
// Given: [`rank_check`] (the checker for plans by rank: a rank holds several stages, a
// backward may be split), [`pass_costs`] (what each pass costs, in CPU time). Yours:
// [`rank_schedules`] (ex 7.7 interleaved 1F1B, ex 7.8 ZB-H1), [`task_executor`] (ex 7.9).
/// The trainer for plans by rank (interleaved 1F1B, ZB-H1), on ex 7.7-7.9.
pub mod chunked_train;
pub mod pass_costs;
pub mod rank_check;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/rank_schedules.rs"
)]
pub mod rank_schedules;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch07-pipeline/task_executor.rs"
)]
pub mod task_executor;
