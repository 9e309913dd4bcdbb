//! Chapter 6: a LibTorch data-parallel trainer over MPI, built piece by piece: what
//! PyTorch's DistributedDataParallel does, on tch and rsmpi.
//!
//! Run the lab with `make run CH=06` (trains the CNN on the shipped UCI digits, 4 ranks)
//! and your exercises with `make check CH=06`.
//!
//! - The exercises: [`bridge`] (ex 6.1: tensor <-> MPI buffer), [`broadcast`] (ex 6.2: an
//!   identical start), [`sampler`] (ex 6.3: each rank its part of the data),
//!   [`grad_sync`] (ex 6.4 per-tensor allreduce, ex 6.5 buckets), [`checkpoint`] (ex 6.6
//!   atomic save, ex 6.7 resume).
//! - Given: [`elem`] (element types), [`flat`] (pack / unpack, identical-parameters
//!   check), [`reducer`] (the [`reducer::Allreduce`] backend: plug chapter 3's ring in
//!   here), [`overlap`] (non-blocking bucketed sync), [`shuffle`] (the shared order),
//!   [`batches`] (the order cut into this rank's batches), [`data`], [`model`],
//!   [`ckpt_format`], [`config`], [`report`], and [`train`], which puts it all together.
//! - From the trainer kit (`chapters/trainer-kit`, shared by the trainer chapters):
//!   [`optim`] (SGD with momentum, its state checkpointed), [`device`] (each rank's device
//!   and threads), the command line's shared flags (in [`config`]) and the checkpoint
//!   container (in [`ckpt_format`]).

pub mod batches;
pub mod ckpt_format;
pub mod config;
pub mod data;
pub mod elem;
pub mod flat;
pub mod model;
pub mod overlap;
pub mod reducer;
pub mod report;
pub mod shuffle;
pub mod train;

/// Where each rank runs: its device (the GPU of its local rank) and its threads (the
/// cores it may use). The trainer kit's.
pub use trainer_kit::place as device;

/// SGD with momentum, written out so that its buffers can be checkpointed. The trainer
/// kit's.
pub use trainer_kit::optim;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch06-data-parallel/bridge.rs"
)]
pub mod bridge;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch06-data-parallel/broadcast.rs"
)]
pub mod broadcast;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch06-data-parallel/sampler.rs"
)]
pub mod sampler;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch06-data-parallel/grad_sync.rs"
)]
pub mod grad_sync;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch06-data-parallel/checkpoint.rs"
)]
pub mod checkpoint;

pub use trainer_kit::cli::ranks_from_env;
