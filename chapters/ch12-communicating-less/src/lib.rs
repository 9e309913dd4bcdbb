//! Chapter 12: communicating less. Part 1: the hierarchical allreduce. The ranks are
//! grouped by node; the sum is formed inside each node over shared memory first, so that
//! fewer and larger messages cross the slow links between nodes. Part 2a: fewer bytes,
//! by sending only the largest elements of each gradient and keeping the rest for later
//! (top-k with error feedback). Part 2b: fewer messages, by averaging the parameters
//! only every `H` local steps (local SGD).
//!
//! Run the labs with `make run CH=12` (`hier`, 4 ranks as 2 emulated nodes),
//! `make run CH=12 BIN=compress`, `make run CH=12 BIN=compress_cnn` and
//! `make run CH=12 BIN=local_sgd`, the benchmark with `make bench CH=12`, your exercises
//! with `make check CH=12`.
//!
//! Given code (read it, use it):
//! - [`nodes`]: the node groups ([`nodes::NodeGroups`]: the node, its leader, the leaders,
//!   the peers), by `split_shared` or an emulated layout ([`nodes::Nodes`]), a bad
//!   layout refused in one line;
//! - [`lab_flags`]: what the labs' flags share; [`hier_flags`] and [`compress_flags`]:
//!   the `hier` and `compress` labs' flags;
//! - [`model`]: the alpha-beta time of the flat ring and of the two hierarchical
//!   schedules with two link classes, and the size from which one wins;
//! - [`links`]: the two link classes measured (chapter 10's matrix, split by node);
//! - [`feedback`]: a worker's error-feedback state (the residual, how many elements a
//!   step keeps, the bytes sent), a bad share refused in one line;
//! - [`lsq`]: the least-squares model the `compress` lab trains, and its training loop;
//! - [`averaging`]: a local-SGD worker's state (`H`, the steps since the last average,
//!   the bytes sent), `H = 0` refused in one line;
//! - [`local_run`]: the `local_sgd` lab's loop (ex 12.5's step on [`lsq`]'s problem, the
//!   loss at every average); [`local_flags`]: that lab's flags;
//! - [`side_by_side`]: the `less_bench` benchmark's methods on one training loop;
//! - [`compressed`]: the dense sum, top-k and 8-bit codes as a chapter 6 allreduce
//!   backend, so that the `compress_cnn` lab trains chapter 6's CNN with them;
//!   [`cnn_run`]: that lab's run of one scheme; [`cnn_flags`]: its flags.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`hier`] (ex 12.1: through one leader per node), [`busy`] (ex 12.2: every rank
//! carries a shard across the nodes), [`topk`] (ex 12.3: top-k with error feedback),
//! [`quant`] (ex 12.4, optional) and [`local`] (ex 12.5: local SGD).

pub mod averaging;
pub mod cnn_flags;
pub mod cnn_run;
pub mod compress_flags;
pub mod compressed;
pub mod feedback;
pub mod gpt_run;
pub mod hier_flags;
pub mod lab_flags;
pub mod links;
pub mod local_flags;
pub mod local_run;
pub mod lsq;
pub mod model;
pub mod nodes;
pub mod side_by_side;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch12-communicating-less/hier.rs"
)]
pub mod hier;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch12-communicating-less/busy.rs"
)]
pub mod busy;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch12-communicating-less/topk.rs"
)]
pub mod topk;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch12-communicating-less/quant.rs"
)]
pub mod quant;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch12-communicating-less/local.rs"
)]
pub mod local;
