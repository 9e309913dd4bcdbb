//! Given: the `hier` lab's flags, read with clap before MPI starts. A bad flag (`--nodes`
//! that is neither `shared` nor 1 or more nodes, a count or a link figure that is not
//! above 0, a flag the lab does not have) is refused in one line that names it, before
//! any communication; more emulated nodes than ranks is refused once the job knows its
//! size (`Nodes::check`). Nothing to run here: the lab and the tests use it.

use crate::lab_flags::{above_zero, positive, read};
use crate::model::{AlphaBeta, Cards};
use crate::nodes::Nodes;
use clap::{CommandFactory, Parser};

/// The lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "hier",
    disable_version_flag = true,
    about = "The flat allreduce against the two hierarchical ones, timed and next to the \
             alpha-beta model with two link classes"
)]
pub struct HierFlags {
    /// Emulated nodes (the ranks dealt in blocks), or `shared`: the real nodes
    /// (split_shared)
    #[arg(long, value_name = "N|shared", default_value = "2", value_parser = Nodes::parse)]
    pub nodes: Nodes,
    /// Timed repetitions per size and schedule
    #[arg(long, value_name = "R", default_value_t = 20, value_parser = positive::<usize>)]
    pub reps: usize,
    /// The assumed latency between nodes for the last table, µs
    #[arg(long, value_name = "A", default_value_t = 50.0, value_parser = above_zero,
          allow_negative_numbers = true)]
    pub inter_us: f64,
    /// The assumed bandwidth between nodes for the last table, GB/s (0.125: 1 Gb/s
    /// Ethernet)
    #[arg(long, value_name = "B", default_value_t = 0.125, value_parser = above_zero,
          allow_negative_numbers = true)]
    pub inter_gbps: f64,
    /// The network cards of a node for the last table: `node` (one, shared by the node's
    /// ranks) or `rank` (one per rank, as a GPU cluster has one per GPU)
    #[arg(long, value_name = "node|rank", default_value = "node", value_parser = parse_cards)]
    pub cards: Cards,
}

/// `node` or `rank`.
fn parse_cards(text: &str) -> Result<Cards, String> {
    match text {
        "node" => Ok(Cards::OnePerNode),
        "rank" => Ok(Cards::OnePerRank),
        _ => Err(format!(
            "{text:?} is neither `node` (one card per node) nor `rank`"
        )),
    }
}

impl HierFlags {
    /// The assumed link between nodes, in seconds and bytes per second.
    pub fn inter(&self) -> AlphaBeta {
        AlphaBeta {
            alpha: self.inter_us * 1e-6,
            beta: self.inter_gbps * 1e9,
        }
    }
}

/// The flags after the program's name, or the one line that says what is wrong.
pub fn parse(args: &[String]) -> Result<HierFlags, String> {
    read("hier", args)
}

/// `hier --help`.
pub fn help() -> String {
    HierFlags::command().render_help().to_string()
}
