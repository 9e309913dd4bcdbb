//! Chapter 14: precision. Part 1: the number formats of mixed-precision training (bf16,
//! f16, FP8 E4M3 and E5M2) and what rounding does to a sum over the ranks. Part 2: f16
//! gradients under a dynamic loss scale that every rank agrees on. Part 3: chapter 6's
//! model trained in bf16 and f16 on f32 master weights, and chapter 8's ZeRO stages in
//! mixed precision.
//!
//! Run the labs with `make run CH=14` (`formats`: the formats and a few values rounded to
//! each) and `make run CH=14 BIN=lowsum` (the sum of bf16 gradients over 1 to P ranks,
//! three ways, against the exact sum) and `make run CH=14 BIN=scaling` (tiny gradients in
//! f32, in f16 unscaled and in f16 under a dynamic loss scale) and `make run CH=14
//! BIN=mixed` (the digits in f32, bf16 and f16, gradients summed in f32 or bf16) and `make
//! run CH=14 BIN=zero_mixed` (ZeRO's stages in bf16: the bytes per rank), your
//! exercises with `make check CH=14`.
//!
//! Given code (read it, use it):
//! - [`format`]: the four formats as bit fields, what each code means
//!   ([`format::Format::decode`]), their largest and smallest values;
//! - [`ring`]: chapter 3's ring allreduce in bf16, every partial sum rounded (it calls
//!   your ex 14.1);
//! - [`data`]: the lab's gradient-like values, the exact sum, the relative error.
//! - [`flags`]: the labs' flags, refused in one line before MPI starts;
//! - [`loss_scale`]: a loss scaler's state and its verdict (step or skip);
//! - [`mixed`]: data-parallel training with f16 gradients, f32 master weights and Adam
//!   sharded over the ranks, on chapter 12's least-squares problem;
//! - [`weights`]: a model's f32 master weights and their working copy in bf16 or f16;
//! - [`trainer`]: chapter 6's model trained data parallel in mixed precision (it calls
//!   your ex 14.4);
//! - [`zero`], [`zero_memory`] and [`zero_run`]: chapter 8's ZeRO stages in mixed
//!   precision, the bytes each holds (measured and by the ZeRO paper's formulas), and
//!   their training.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`encode`] (ex 14.1: round an f32 to a format's nearest code, ties to even) and
//! [`wire`] (ex 14.2: bf16 on the wire, one rounding in the sum) and [`scaler`] (ex 14.3:
//! the loss scale's update, agreed over the ranks) and [`master`] (ex 14.4: the
//! mixed-precision step on the f32 master weights) and [`fp8_gather`] (ex 14.5, optional:
//! ZeRO-3's parameter allgather in FP8 with one scale per tensor).

pub mod data;
pub mod flags;
pub mod format;
pub mod loss_scale;
pub mod mixed;
pub mod ring;
pub mod trainer;
pub mod weights;
pub mod zero;
pub mod zero_memory;
pub mod zero_run;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch14-precision/encode.rs"
)]
pub mod encode;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch14-precision/wire.rs"
)]
pub mod wire;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch14-precision/scaler.rs"
)]
pub mod scaler;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch14-precision/master.rs"
)]
pub mod master;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch14-precision/fp8_gather.rs"
)]
pub mod fp8_gather;
