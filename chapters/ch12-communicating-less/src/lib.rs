//! Chapter 12: communicating less. Part 1: the hierarchical allreduce. The ranks are
//! grouped by node; the sum is formed inside each node over shared memory first, so that
//! fewer and larger messages cross the slow links between nodes.
//!
//! Run the lab with `make run CH=12` (`hier`, 4 ranks as 2 emulated nodes), your
//! exercises with `make check CH=12`.
//!
//! Given code (read it, use it):
//! - [`nodes`]: the node groups ([`nodes::NodeGroups`]: the node, its leader, the leaders,
//!   the peers), by `split_shared` or an emulated layout ([`nodes::Nodes`]), a bad
//!   layout refused in one line;
//! - [`model`]: the alpha-beta time of the flat ring and of the two hierarchical
//!   schedules with two link classes, and the size from which one wins.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`hier`] (ex 12.1: through one leader per node) and [`busy`] (ex 12.2: every rank
//! carries a shard across the nodes).

pub mod model;
pub mod nodes;

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
