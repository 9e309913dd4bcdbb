//! Given: the grid of ranks a model is trained on, DP x TP x PP, and its communicators.
//!
//! `ranks = dp * tp * pp`. Placement is Megatron-LM's default order, `tp-cp-ep-dp-pp`
//! (`parallel_state.py`'s `RankGenerator`; here without context or expert parallelism):
//! TP innermost, then DP, then PP outermost. Rank `g` is stage `g / (dp tp)`, replica
//! `(g / tp) % dp`, shard `g % tp`. TP moves the most bytes, several allreduces per
//! block, on the critical path, so its groups are consecutive ranks, inside a node where
//! the links are fastest; DP's one allreduce a step comes next; PP's point-to-point
//! messages are the fewest bytes and tolerate the slowest links, so the stages are the
//! farthest apart. With `pp = 1` this is the DP x TP grid: replica `g / tp`, shard `g % tp`.
//!
//! The groups of a rank: TP, the `tp` ranks of its replica and stage; DP, the `dp` ranks
//! of its stage and shard, one per replica; PP, the `pp` ranks of its replica and shard,
//! one per stage (rank s in it is stage s: activations go from s to s + 1 on it). And,
//! when `pp > 1`, the embedding group: the first and the last stage of its PP group. The
//! head is tied to the embedding, the embedding lives on the first stage and the head on
//! the last, so each holds a copy of the table (its rows `V_r` of it); their gradients
//! are summed over this group of two every step, so both copies take the same update and
//! stay equal (Megatron's embedding group). [`Layout`] is checked before any
//! communication; [`Grid::new`] then splits the world (MPI_Comm_split) into the groups.

use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

/// The sizes of the grid's axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Data-parallel replicas.
    pub dp: usize,
    /// Ranks of one tensor-parallel group.
    pub tp: usize,
    /// Pipeline stages.
    pub pp: usize,
}

/// Where one rank sits in the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coords {
    /// Its replica, `0..dp`.
    pub dp: usize,
    /// Its shard within the replica, `0..tp`.
    pub tp: usize,
    /// Its pipeline stage, `0..pp`.
    pub pp: usize,
}

impl Layout {
    /// `dp x tp` (one stage) over `ranks` ranks; `Err` in one line when they do not
    /// multiply to it.
    pub fn new(dp: usize, tp: usize, ranks: usize) -> Result<Self, String> {
        if dp == 0 || tp == 0 || dp * tp != ranks {
            return Err(format!(
                "--dp {dp} x --tp {tp} is not the job's {ranks} ranks (dp * tp must equal the ranks)"
            ));
        }
        Ok(Layout { dp, tp, pp: 1 })
    }

    /// `dp x tp x pp` over `ranks` ranks for a model of `layers` blocks; `Err` in one
    /// line when they do not multiply to it or a stage would get no block.
    pub fn staged(
        dp: usize,
        tp: usize,
        pp: usize,
        layers: usize,
        ranks: usize,
    ) -> Result<Self, String> {
        if pp == 1 {
            return Self::new(dp, tp, ranks);
        }
        if dp == 0 || tp == 0 || pp == 0 || dp * tp * pp != ranks {
            return Err(format!(
                "--dp {dp} x --tp {tp} x --pp {pp} is not the job's {ranks} ranks (dp * tp * pp must equal the ranks)"
            ));
        }
        if pp > layers {
            return Err(format!(
                "--pp {pp} stages for {layers} blocks: each stage needs at least one (--pp at most {layers})"
            ));
        }
        Ok(Layout { dp, tp, pp })
    }

    /// The ranks of the grid.
    pub fn ranks(&self) -> usize {
        self.dp * self.tp * self.pp
    }

    /// Where world rank `rank` sits (TP innermost, then DP, then PP).
    pub fn coords(&self, rank: usize) -> Coords {
        Coords {
            dp: (rank / self.tp) % self.dp,
            tp: rank % self.tp,
            pp: rank / (self.tp * self.dp),
        }
    }
}

/// This rank's place in the grid and its groups.
pub struct Grid {
    pub layout: Layout,
    pub me: Coords,
    /// The `tp` ranks of this rank's replica and stage (rank r in it holds shard r).
    pub tp: SimpleCommunicator,
    /// The `dp` ranks that hold this rank's shard of this stage, one per replica.
    pub dp: SimpleCommunicator,
    /// The `pp` stages of this rank's replica and shard (rank s in it is stage s).
    pub pp: SimpleCommunicator,
    /// The first and the last stage of the PP group, which both hold the tied table:
    /// `Some` on those two when `pp > 1`, else `None`.
    pub embedding: Option<SimpleCommunicator>,
}

impl Grid {
    /// Splits `world` (of `layout.ranks()` ranks: checked by [`Layout::new`] or
    /// [`Layout::staged`]) into the groups. Collective over `world`.
    pub fn new(world: &SimpleCommunicator, layout: Layout) -> Self {
        assert_eq!(world.size() as usize, layout.ranks(), "a checked layout");
        let me = layout.coords(world.rank() as usize);
        let (d, t, s) = (layout.dp, layout.tp, layout.pp);
        let split = |color: Color, key: usize| world.split_by_color_with_key(color, key as i32);
        let value = |c: usize| Color::with_value(c as i32);
        let must = |c: Option<SimpleCommunicator>| c.expect("every rank has a color");
        let tp = must(split(value(me.pp * d + me.dp), me.tp));
        let dp = must(split(value(me.pp * t + me.tp), me.dp));
        let pp = must(split(value(me.dp * t + me.tp), me.pp));
        let ends = s > 1 && (me.pp == 0 || me.pp == s - 1);
        let color = match ends {
            true => value(me.dp * t + me.tp),
            false => Color::undefined(),
        };
        let embedding = split(color, me.pp);
        Grid {
            layout,
            me,
            tp,
            dp,
            pp,
            embedding,
        }
    }

    /// Whether this rank is its pipeline's first stage (the embeddings live there).
    pub fn first_stage(&self) -> bool {
        self.me.pp == 0
    }

    /// Whether this rank is its pipeline's last stage (the final norm, the head).
    pub fn last_stage(&self) -> bool {
        self.me.pp + 1 == self.layout.pp
    }
}
