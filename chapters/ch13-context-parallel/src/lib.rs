//! Chapter 13: context parallelism. Part 1: attention over a sequence split across the
//! ranks. The softmax of a query over all keys comes together exactly from its parts, by
//! their log-sum-exps (ex 13.1); ring attention passes the key/value blocks round the
//! ranks while each computes with the block it holds (ex 13.2), skipping the blocks a
//! causal mask leaves wholly in the future; the zig-zag layout gives every rank the same
//! share of that causal work (ex 13.3). Ulysses cuts the heads instead, for the length of
//! the attention, with two all-to-alls (ex 13.4).
//!
//! Run the lab with `make run CH=13` (`ring_attention`: the sequence over the ranks,
//! causal and not: the blocks each rank attends to, its time, and the largest difference
//! from one process), your exercises with `make check CH=13`.
//!
//! Given code (read it, use it):
//! - [`partial`]: attention over one block of keys as a [`partial::Partial`] (output and
//!   log-sum-exp), and the one-process reference;
//! - [`blocks`]: each rank's block of the sequence, a key/value block as one message, the
//!   blocks a rank attends to; the zig-zag layout and the chunk pairs each rank computes;
//! - [`grads`]: the gradients of attention over one block of keys, from the forward's lse;
//! - [`flags`]: the labs' flags, refused in one line before MPI starts;
//! - [`timing`] and [`lab`]: how the labs time a rank's work, alone and all ranks
//!   together; the inputs they draw and their first call of ex 13.1.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`merge`] (ex 13.1: two partial attentions merged by their log-sum-exp), [`ring`]
//! (ex 13.2: ring attention, forward), [`zigzag`] (ex 13.3: the same in the zig-zag
//! layout, every rank the same causal work), [`ulysses`] (ex 13.4: attention by heads,
//! between two all-to-alls) and [`backward`] (ex 13.5: ring attention's backward pass).

pub mod blocks;
pub mod context;
pub mod flags;
pub mod gpt_cp;
pub mod gpt_cp_lab;
pub mod grads;
pub mod lab;
pub mod memory;
pub mod partial;
pub mod timing;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch13-context-parallel/merge.rs"
)]
pub mod merge;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch13-context-parallel/ring.rs"
)]
pub mod ring;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch13-context-parallel/zigzag.rs"
)]
pub mod zigzag;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch13-context-parallel/ulysses.rs"
)]
pub mod ulysses;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch13-context-parallel/backward.rs"
)]
pub mod backward;
