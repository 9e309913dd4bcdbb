//! Chapter 10: troubleshooting. Part 1: a slow link, reproduced on one machine with
//! `WORKBOOK_SLOW_LINK`, found from a timing matrix, and avoided by choosing the algorithm
//! that crosses it least. Part 2: a slow rank (a straggler), reproduced with
//! `WORKBOOK_STRAGGLER`, found from the ranks' arrivals at each collective; and a desync
//! check: every rank's fingerprint of the next collective compared before it is called.
//!
//! Run the labs with `make run CH=10` (`slow_link`, 8 ranks),
//! `make run CH=10 BIN=straggler` (8 ranks) and `make run CH=10 BIN=desync` (4 ranks),
//! your exercises with `make check CH=10`.
//!
//! Given code (read it, use it):
//! - [`matrix`]: every pair's ping-pong, small and large, fitted to chapter 1's
//!   alpha-beta model and gathered to rank 0: the link-timing matrix;
//! - [`model`]: the time chapter 3's ring and recursive doubling take when one link is
//!   slower than the others (the ring waits for it at every step);
//! - [`skew`]: a training-like loop whose arrivals at each allreduce are recorded and
//!   gathered to rank 0, and the score kept per rank ([`skew::RankScore`]);
//! - [`fingerprint`]: a collective call's fingerprint, as text and as integers for an
//!   allgather, and the text of a mismatch ([`fingerprint::Mismatch`]).
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`find`] (ex 10.1: which links are slow), [`crossover`] (ex 10.2: from which slowdown
//! recursive doubling beats the ring), [`order`] (ex 10.3: a ring order that leaves the
//! slow links out), [`straggler`] (ex 10.4: a score per rank and the stragglers),
//! [`waiting`] (ex 10.5: the time each rank waited for the last one), [`desync`]
//! (ex 10.6: check that every rank calls the same collective).

pub mod fingerprint;
pub mod matrix;
pub mod model;
pub mod skew;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/find.rs"
)]
pub mod find;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/crossover.rs"
)]
pub mod crossover;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/order.rs"
)]
pub mod order;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/straggler.rs"
)]
pub mod straggler;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/waiting.rs"
)]
pub mod waiting;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch10-troubleshooting/desync.rs"
)]
pub mod desync;

pub use ch01::model::AlphaBeta;
