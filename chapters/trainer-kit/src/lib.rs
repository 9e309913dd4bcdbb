//! The trainer kit: the infrastructure the trainer chapters share (chapter 6's data-parallel
//! trainer, chapter 7's pipeline trainer, and the ZeRO, tensor-parallel and MoE trainers to
//! come), written once.
//!
//! - [`cli`]: the command line (clap): the flags every trainer takes, flattened into each
//!   trainer's own, with one-line errors that name the bad flag;
//! - [`ckpt`]: one checkpoint container (magic, version, body, FNV-1a checksum), a header
//!   that names the model, and the byte writer and reader of the bodies;
//! - [`optim`]: SGD, SGD with momentum and Adam over lists of tensors (a flat buffer is a
//!   list of one), with their state in the open so that it can be checkpointed;
//! - [`cuda_ipc`]: GPU memory from one rank to another of its node without the host (CUDA
//!   IPC handles exchanged over MPI), where LibTorch's CUDA build is loaded;
//! - [`cuda_runtime`]: the CUDA runtime LibTorch loaded, and the calls IPC needs from it;
//! - [`place`]: the cores this rank may use (its CPU affinity), its device and its threads;
//! - [`entry`]: a trainer's `main` after its flags: MPI, the job, one exit status;
//! - [`fault`]: a rank killed on purpose mid-training, and the test that the job ends;
//! - [`rng`]: SplitMix64, the same random numbers on every rank;
//! - [`testing`]: for a trainer's tests, its refusals of bad flags.
//!
//! Nothing here is an exercise: what a chapter teaches (the atomic save of ex 6.6, the
//! restore of ex 6.7, the thread plan of chapter 5...) stays in that chapter.

pub mod ckpt;
pub mod cli;
pub mod cuda_ipc;
pub mod cuda_runtime;
pub mod entry;
pub mod fault;
pub mod optim;
pub mod place;
pub mod rng;
pub mod testing;
