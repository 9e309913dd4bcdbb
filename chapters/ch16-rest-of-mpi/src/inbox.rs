//! Given: where each edge lands in a rank's window for the one-sided halo exchange.
//!
//! A rank's window is its *inbox*: four slots, one per ghost side, in the order of
//! [`SIDES`] (north, south, west, east). A neighbour puts its edge into the slot of the
//! ghost side it fills: my north edge goes to my north neighbour's *south* slot. A put's
//! displacement is counted in the *target's* window, and the targets' blocks differ in
//! size by a row or a column (chapter 4's split), so every slot is as long as the longest
//! edge of any block: the same offsets on every rank, and room for every edge.

use ch04::halo::{Side, SIDES};
use ch04::topology::Decomposition;

/// The layout of every rank's inbox.
#[derive(Clone, Copy, Debug)]
pub struct Inbox {
    /// Doubles per slot: the longest edge of any block of the decomposition.
    pub slot: usize,
}

impl Inbox {
    /// The inbox layout for `decomp`: the first block along each axis is the largest.
    pub fn new(decomp: &Decomposition) -> Inbox {
        let (rows, cols) = (decomp.rows_of(0).len(), decomp.cols_of(0).len());
        Inbox {
            slot: rows.max(cols).max(1),
        }
    }

    /// Where the slot of ghost side `side` starts, in doubles.
    pub fn offset(&self, side: Side) -> usize {
        side as usize * self.slot
    }

    /// The whole inbox's length, in doubles.
    pub fn len(&self) -> usize {
        SIDES.len() * self.slot
    }

    /// True for an inbox of no doubles (never: a slot holds at least one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
