//! Chapter 8: sharded data parallelism. ZeRO-1 and ZeRO-2 from chapter 3's two halves:
//! reduce-scatter the gradients, Adam on this rank's shard only, allgather the parameters;
//! ZeRO-3 (FSDP) with a layer executor that gathers each layer, computes and frees.
//!
//! Run the lab with `make run CH=08` (trains chapter 6's CNN on the shipped digits with
//! `--stage 0|1|2` and prints, per rank, the bytes it holds and sends) and your exercises
//! with `make check CH=08`.
//!
//! - The exercises: [`layout`] (ex 8.1: which slice of the padded flat buffer each rank
//!   owns, and which tensors it cuts), [`step`] (ex 8.2: the two collectives and the
//!   ZeRO-1/2 step), [`layer_step`] (ex 8.3: the backward of one ZeRO-3 layer).
//! - Given: [`shards`] (a rank's [`shards::Layout`], the flat parameters the model's
//!   tensors live in, Adam over a slice), [`halves`] (the reduce-scatter and allgather the
//!   step runs on: MPI's, or chapter 3's ring), [`memory`] (the stages and what each
//!   holds, measured and by formula), [`figure`] (one step's messages, drawn from the
//!   trace), [`config`], [`train`] and [`fit`] (the lab), [`staged`] (the step on a GPU,
//!   its collectives staged through host buffers); [`layers`] (the model cut into FSDP
//!   units, one per layer), [`zero3`] (the ZeRO-3 executor, with prefetch), [`staged3`]
//!   (the executor on a GPU, staged through host buffers), [`budget`] (`--max-mem`),
//!   [`trainer3`] and [`lab3`] (the trainer and the lab at stage 3), [`timed`] (the
//!   collectives timed, for the benchmark); [`sharded_ckpt`], [`ckpt_read`] and
//!   [`trainer_ckpt`] (sharded checkpoints at every stage: each rank its shard of each
//!   unit, a manifest written last, resumed at the same N or resharded to another with
//!   [`reshard`], ex 8.4 (optional): which saved slices make up a new rank's shard);
//!   [`one_file`] and [`one_file_read`] (the same checkpoint as one file, written and read
//!   by every rank at once with MPI-IO: `--checkpoint-format one-file`);
//!   [`zero_lab`] (the `zero` program itself).

pub mod budget;
pub mod ckpt_read;
pub mod config;
pub mod figure;
pub mod fit;
pub mod halves;
pub mod lab3;
pub mod layers;
pub mod memory;
pub mod one_file;
pub mod one_file_read;
pub mod sharded_ckpt;
pub mod shards;
pub mod staged;
pub mod staged3;
pub mod timed;
pub mod train;
pub mod trainer3;
pub mod trainer_ckpt;
pub mod zero3;
pub mod zero_lab;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch08-sharded/layout.rs"
)]
pub mod layout;

#[cfg_attr(feature = "solution", path = "../../../solutions/ch08-sharded/step.rs")]
pub mod step;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch08-sharded/layer_step.rs"
)]
pub mod layer_step;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch08-sharded/reshard.rs"
)]
pub mod reshard;
