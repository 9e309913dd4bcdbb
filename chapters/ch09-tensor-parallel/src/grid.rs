//! Given: the grid of ranks a model is trained on, DP x TP, and its two communicators.
//!
//! `ranks = dp * tp`. The tensor-parallel groups are consecutive ranks (`0..tp`,
//! `tp..2tp`, ...), as Megatron keeps TP inside a node where the links are fastest: rank
//! `g` is replica `g / tp`'s shard `g % tp`. The DP group of a rank is the ranks with the
//! same shard in every replica (`g % tp`, `g % tp + tp`, ...). [`Layout`] is checked
//! before any communication; [`Grid::new`] then splits the world (MPI_Comm_split) into
//! both groups. Pipeline stages will add a third axis: a field of [`Layout`] and of
//! [`Coords`], and a communicator here.

use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

/// The sizes of the grid's axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Data-parallel replicas.
    pub dp: usize,
    /// Ranks of one tensor-parallel group.
    pub tp: usize,
}

/// Where one rank sits in the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coords {
    /// Its replica, `0..dp`.
    pub dp: usize,
    /// Its shard within the replica, `0..tp`.
    pub tp: usize,
}

impl Layout {
    /// `dp x tp` over `ranks` ranks; `Err` in one line when they do not multiply to it.
    pub fn new(dp: usize, tp: usize, ranks: usize) -> Result<Self, String> {
        if dp == 0 || tp == 0 || dp * tp != ranks {
            return Err(format!(
                "--dp {dp} x --tp {tp} is not the job's {ranks} ranks (dp * tp must equal the ranks)"
            ));
        }
        Ok(Layout { dp, tp })
    }

    /// The ranks of the grid.
    pub fn ranks(&self) -> usize {
        self.dp * self.tp
    }

    /// Where world rank `rank` sits.
    pub fn coords(&self, rank: usize) -> Coords {
        Coords {
            dp: rank / self.tp,
            tp: rank % self.tp,
        }
    }
}

/// This rank's place in the grid and its two groups.
pub struct Grid {
    pub layout: Layout,
    pub me: Coords,
    /// The `tp` ranks of this rank's replica (rank r in it holds shard r).
    pub tp: SimpleCommunicator,
    /// The `dp` ranks that hold this rank's shard, one per replica.
    pub dp: SimpleCommunicator,
}

impl Grid {
    /// Splits `world` (of `layout.ranks()` ranks: checked by [`Layout::new`]) into the
    /// groups. Collective over `world`.
    pub fn new(world: &SimpleCommunicator, layout: Layout) -> Self {
        assert_eq!(world.size() as usize, layout.ranks(), "a checked layout");
        let me = layout.coords(world.rank() as usize);
        let split = |color: usize, key: usize| {
            world
                .split_by_color_with_key(Color::with_value(color as i32), key as i32)
                .expect("every rank has a color")
        };
        let tp = split(me.dp, me.tp);
        let dp = split(me.tp, me.dp);
        Grid { layout, me, tp, dp }
    }
}
