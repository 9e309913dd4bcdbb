//! Given: the node groups of a job. A rank's node is found with `split_shared`
//! (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`: the ranks that can share memory), or,
//! so that one laptop can rehearse several nodes, by an emulated layout that deals the
//! ranks to `k` nodes in blocks (`toolkit::split::block_range`: 7 ranks on 2 nodes are 4
//! and 3). Each node names a leader; the leaders form one communicator, and the ranks
//! with the same local rank on every node form another (the "peers").
//!
//! A bad layout (0 nodes, more nodes than ranks, a leader outside its node, ranks of one
//! node naming different leaders) is refused in one line on every rank before any
//! allreduce sends data. Nothing to run here: the tests and the `hier` lab use it.

use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use toolkit::split::block_range;

/// How ranks are grouped into nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nodes {
    /// The real nodes: the ranks that share memory (`split_shared`).
    Shared,
    /// `k` emulated nodes: the ranks dealt to them in blocks, in rank order.
    Emulated(usize),
}

impl Nodes {
    /// `shared`, or 1 or more emulated nodes; anything else refused in one line (a clap
    /// value parser: the `hier` lab's `--nodes`).
    pub fn parse(text: &str) -> Result<Nodes, String> {
        match text {
            "shared" => Ok(Nodes::Shared),
            _ => match text.parse() {
                Ok(k) if k > 0 => Ok(Nodes::Emulated(k)),
                _ => Err("`shared` or a number of nodes, 1 or more".into()),
            },
        }
    }

    /// Ok if this layout can group `ranks` ranks: 1 to `ranks` emulated nodes.
    pub fn check(&self, ranks: usize) -> Result<(), String> {
        match *self {
            Nodes::Emulated(k) if k == 0 || k > ranks => Err(format!(
                "{k} emulated nodes for {ranks} ranks: a node needs at least one rank, so 1 to \
                 {ranks} nodes"
            )),
            _ => Ok(()),
        }
    }
}

/// The emulated node of `rank` when `ranks` ranks are dealt to `k` nodes in blocks.
pub fn emulated_node(ranks: usize, k: usize, rank: usize) -> usize {
    (0..k)
        .find(|&i| block_range(ranks, k, i).contains(&rank))
        .expect("every rank is in a block")
}

/// Where a rank sits, as a leader choice sees it.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    /// The rank in the world.
    pub world_rank: usize,
    /// Its node's index (nodes numbered in the order of their lowest world rank).
    pub node: usize,
    /// Its rank inside the node.
    pub local_rank: usize,
    /// The node's number of ranks.
    pub local_size: usize,
}

// ANCHOR: groups
/// The communicators of a hierarchical allreduce, as one rank holds them.
pub struct NodeGroups {
    /// This rank's place.
    pub place: Place,
    /// The ranks of this rank's node, in world-rank order.
    pub node: SimpleCommunicator,
    /// The local rank of this node's leader.
    pub leader: usize,
    /// The leaders, one per node in node order: `Some` on a leader, `None` elsewhere.
    pub leaders: Option<SimpleCommunicator>,
    /// The ranks with this rank's local rank, one per node that has it, in node order.
    pub peers: SimpleCommunicator,
    /// The number of ranks of each node, in node order.
    pub sizes: Vec<usize>,
    /// How the nodes were found.
    pub layout: Nodes,
}
// ANCHOR_END: groups

impl NodeGroups {
    /// The groups with local rank 0 as every node's leader.
    pub fn new(world: &SimpleCommunicator, layout: Nodes) -> Result<NodeGroups, String> {
        NodeGroups::with_leader(world, layout, |_| 0)
    }

    /// The groups with the leader each rank names with `choose` (a local rank). Every
    /// rank must call it; all return the same `Err` when the layout is bad or the ranks
    /// of a node name different leaders.
    pub fn with_leader(
        world: &SimpleCommunicator,
        layout: Nodes,
        choose: impl Fn(&Place) -> usize,
    ) -> Result<NodeGroups, String> {
        let (rank, p) = (world.rank() as usize, world.size() as usize);
        layout.check(p)?;
        let node = match layout {
            Nodes::Shared => world.split_shared(rank as i32),
            Nodes::Emulated(k) => {
                let color = Color::with_value(emulated_node(p, k, rank) as i32);
                world.split_by_color_with_key(color, rank as i32).unwrap()
            }
        };
        let (local_rank, local_size) = (node.rank() as usize, node.size() as usize);
        // Node index: the rank of the node's first rank among all the first ranks.
        let firsts = world.split_by_color_with_key(
            if local_rank == 0 {
                Color::with_value(0)
            } else {
                Color::undefined()
            },
            rank as i32,
        );
        let mut index = firsts.map_or(0, |c| c.rank() as u64);
        node.process_at_rank(0).broadcast_into(&mut index);
        let place = Place {
            world_rank: rank,
            node: index as usize,
            local_rank,
            local_size,
        };
        let leader = choose(&place);
        let mine = [index, local_rank as u64, local_size as u64, leader as u64];
        let mut all = vec![0u64; 4 * p];
        world.all_gather_into(&mine[..], &mut all[..]);
        let sizes = check_leaders(&all)?;
        let color = |c: bool, v: usize| match c {
            true => Color::with_value(v as i32),
            false => Color::undefined(),
        };
        let leaders = world.split_by_color_with_key(color(local_rank == leader, 0), index as i32);
        let peers = world
            .split_by_color_with_key(color(true, local_rank), index as i32)
            .unwrap();
        Ok(NodeGroups {
            place,
            node,
            leader,
            leaders,
            peers,
            sizes,
            layout,
        })
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.sizes.len()
    }

    /// Whether every node has the same number of ranks (what ex 12.2 needs).
    pub fn uniform(&self) -> bool {
        self.sizes.iter().all(|&s| s == self.sizes[0])
    }

    /// The layout in a few words: `2 nodes (emulated) of 2 ranks each`, `3 nodes
    /// (emulated) of 3, 2 and 2 ranks`, `1 node (split_shared) of 4 ranks`.
    pub fn describe(&self) -> String {
        let how = match self.layout {
            Nodes::Shared => "split_shared",
            Nodes::Emulated(_) => "emulated",
        };
        let nodes = toolkit::report::counted(self.nodes(), "node");
        let ranks = match &self.sizes[..] {
            [one] => toolkit::report::rank_count(*one),
            [first, ..] if self.uniform() => {
                format!("{} each", toolkit::report::rank_count(*first))
            }
            [init @ .., last] => {
                let init: Vec<String> = init.iter().map(|s| s.to_string()).collect();
                format!("{} and {last} ranks", init.join(", "))
            }
            [] => "no ranks".into(),
        };
        format!("{nodes} ({how}) of {ranks}")
    }
}

/// From every rank's `[node, local rank, local size, leader]`: the sizes of the nodes in
/// node order, or the one line that says which node's leader is wrong.
fn check_leaders(all: &[u64]) -> Result<Vec<usize>, String> {
    let rows: Vec<&[u64]> = all.chunks(4).collect();
    let nodes = rows.iter().map(|r| r[0] as usize + 1).max().unwrap_or(0);
    let mut sizes = vec![0usize; nodes];
    for (n, size) in sizes.iter_mut().enumerate() {
        let mine: Vec<&&[u64]> = rows.iter().filter(|r| r[0] as usize == n).collect();
        *size = mine[0][2] as usize;
        if let Some(r) = mine.iter().find(|r| r[3] >= r[2]) {
            return Err(format!(
                "node {n}: local rank {} names local rank {} as the leader, but the node has \
                 {} ranks",
                r[1], r[3], r[2]
            ));
        }
        if mine.iter().any(|r| r[3] != mine[0][3]) {
            let named: Vec<String> = mine
                .iter()
                .map(|r| format!("local rank {} names {}", r[1], r[3]))
                .collect();
            return Err(format!(
                "node {n}: its ranks name different leaders ({}); every rank of a node must \
                 name the same one",
                named.join(", ")
            ));
        }
    }
    Ok(sizes)
}
