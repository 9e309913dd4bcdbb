//! Chapter 9: tensor parallelism. Megatron's column- and row-parallel layers on MPI: a
//! transformer block whose weights are split over t ranks, two allreduces forward and two
//! backward, checked against one process.
//!
//! Run the lab with `make run CH=09 SOLUTION=1` (`tp_block`: one block forward and
//! backward at t ranks against one process, what each rank holds and sends) and your
//! exercises with `make check CH=09`.
//!
//! - The exercises: [`shards`] (ex 9.1: which columns, heads and vocabulary ids rank r
//!   owns), [`mappings`] (ex 9.2: f and g), [`linear`] (ex 9.3: the column- and
//!   row-parallel layers), [`mlp`] (ex 9.4: the MLP with its two cuts), [`attention`] (ex
//!   9.5: attention split by heads), [`vocab`] (ex 9.6: the vocabulary-parallel embedding
//!   and cross-entropy), [`sequence`] (ex 9.7, optional: the MLP with sequence
//!   parallelism).
//! - Given: [`tp`] (the group and its allreduces on tensors), [`tape`] (communication
//!   inside the model by cutting LibTorch's graph), [`params`] (the block's shape and
//!   parameters, whole or one rank's shard), [`ops`] (layer norm, GeLU, attention over a
//!   rank's heads), [`mod@reference`] (the block in one process), [`block`] (the
//!   tensor-parallel block), [`counts`] (what a rank holds and sends, by formula),
//!   [`compare`] (differences and their bounds), [`flags`] and [`lab`] (the lab).
//! - Given, the capstone's first half: [`corpus`] (the book's pages as characters),
//!   [`gpt`] (a small GPT, whole or one rank's shard), [`grid`] (DP x TP x PP),
//!   [`train`] (a step on the grid, and in one process), [`gpt_ckpt`],
//!   [`gpt_ckpt_read`], [`gpt_ckpt_state`] and [`gpt_cut`] (its checkpoints, one format
//!   for every layout, pipelined or not),
//!   [`sample`] (text from it),
//!   [`gpt_flags`], [`gpt_lab`] and [`gpt_lab_start`] (the lab `gpt`: `make run CH=09
//!   BIN=gpt SOLUTION=1`; `--device cuda` on a GPU).
//! - Given, the third axis: [`grid`]'s PP and embedding groups, [`stage`] (a pipeline
//!   stage's blocks, parameters and forward), [`pipe`] (messages between stages),
//!   [`pipeline`] (GPipe over micro-batches), [`gpt_lab_pipeline`] (`gpt --pp P --micro M`),
//!   [`step_trace`] (one step's communication on every rank, a Perfetto trace).
//! - Given, for chapter 13: [`context`] (the seam where the sequence is split over ranks:
//!   the tokens and positions a rank holds, and attention over all of them).

pub mod block;
pub mod compare;
pub mod context;
pub mod corpus;
pub mod counts;
pub mod flags;
pub mod gpt;
pub mod gpt_ckpt;
pub mod gpt_ckpt_read;
pub mod gpt_ckpt_state;
pub mod gpt_cut;
pub mod gpt_flags;
pub mod gpt_lab;
pub mod gpt_lab_pipeline;
pub mod gpt_lab_start;
pub mod grid;
pub mod lab;
pub mod ops;
pub mod params;
pub mod pipe;
pub mod pipeline;
pub mod reference;
pub mod sample;
pub mod stage;
pub mod step_trace;
pub mod tape;
pub mod tp;
pub mod train;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/shards.rs"
)]
pub mod shards;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/mappings.rs"
)]
pub mod mappings;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/linear.rs"
)]
pub mod linear;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/mlp.rs"
)]
pub mod mlp;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/attention.rs"
)]
pub mod attention;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/vocab.rs"
)]
pub mod vocab;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch09-tensor-parallel/sequence.rs"
)]
pub mod sequence;
