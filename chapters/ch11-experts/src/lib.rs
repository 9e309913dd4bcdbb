//! Chapter 11: expert parallelism. A Mixture-of-Experts (MoE) layer whose experts are
//! split over the ranks: a router picks each token's top-k experts, a capacity caps what
//! each expert takes, and two all-to-all exchanges carry the tokens to their experts'
//! ranks and the outputs back (part 1); the backward through both exchanges and the
//! load-balancing loss that trains the router to spread the tokens (part 2).
//!
//! Run the lab with `make run CH=11` (`moe`, 4 ranks), your exercises with
//! `make check CH=11`.
//!
//! Given code (read it, use it):
//! - [`config`]: the layer's settings ([`config::MoeConfig`], refused in one line when
//!   bad) and which rank holds which experts ([`config::Layout`], blocks of
//!   `toolkit::split`);
//! - [`routing`]: what the router decides ([`routing::Routing`], one
//!   [`routing::Choice`] per token and choice) and what a dispatch hands over
//!   ([`routing::Dispatched`]);
//! - [`experts`]: the experts (linear maps, or the identity for the checks);
//! - [`layer`]: the whole layer's forward (route, dispatch, experts, combine) and the same
//!   layer in one process, every expert local;
//! - [`task`]: generated tokens, drawn around a few clusters, and their router logits;
//! - [`flags`]: the lab's flags, checked before MPI starts;
//! - [`nets`]: the experts as LibTorch tensors that require grad;
//! - [`pass`]: the layer's forward in autograd, its graph cut at both exchanges;
//! - [`anchor`]: `moe_train`'s step timed in one process, for `make anchors`.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`router`] (ex 11.1: top-k, gate weights, capacity and drops), [`exchange`]
//! (ex 11.2: the rows to their experts' ranks, counts first, and back), [`backward`]
//! (ex 11.3: the backward through both exchanges) and [`balance`] (ex 11.4: the Switch
//! load-balancing loss over the ranks).

pub mod anchor;
pub mod config;
pub mod experts;
pub mod flags;
pub mod layer;
pub mod nets;
pub mod pass;
pub mod routing;
pub mod task;
pub mod train;
pub mod train_flags;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch11-experts/router.rs"
)]
pub mod router;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch11-experts/exchange.rs"
)]
pub mod exchange;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch11-experts/backward.rs"
)]
pub mod backward;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch11-experts/balance.rs"
)]
pub mod balance;
