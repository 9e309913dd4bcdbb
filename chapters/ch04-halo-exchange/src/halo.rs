//! Given: the four sides of a block, the tags, and the halo buffers that travel.
//!
//! A halo exchange sends each owned edge to the neighbour on that side and receives the
//! neighbour's edge into the ghost layer. Rows are contiguous and could be sent in place;
//! columns are strided and are packed into a buffer first (ex 4.2). For one code path, all
//! four edges travel through [`Halo`]'s buffers: pack, exchange (ex 4.3-4.5), unpack.
//!
//! ```text
//!            send[North] = owned row 0 ──► north neighbour's recv[South]
//!   recv[West]  ◄── west neighbour's send[East]
//! ```

use crate::field::Field;
use crate::topology::Neighbours;
use mpi::topology::Rank;
use mpi::Tag;

// ANCHOR: side
/// A side of a block. `as usize` indexes [`Halo::send`] and [`Halo::recv`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    North = 0,
    South = 1,
    West = 2,
    East = 3,
}

/// The four sides, in index order.
pub const SIDES: [Side; 4] = [Side::North, Side::South, Side::West, Side::East];

impl Side {
    /// The side facing this one: the neighbour on my north receives on its south.
    pub fn opposite(self) -> Side {
        match self {
            Side::North => Side::South,
            Side::South => Side::North,
            Side::West => Side::East,
            Side::East => Side::West,
        }
    }

    /// The tag of a message travelling *towards* this side. Sending to the north
    /// neighbour: `North.tag()`; receiving from it: `North.opposite().tag()`. With 2 ranks
    /// along a periodic axis both neighbours are one rank: only the tag tells the two
    /// messages apart.
    pub fn tag(self) -> Tag {
        40 + self as Tag
    }
}

impl Neighbours {
    /// The neighbour on `side`, if any.
    pub fn of(&self, side: Side) -> Option<Rank> {
        match side {
            Side::North => self.north,
            Side::South => self.south,
            Side::West => self.west,
            Side::East => self.east,
        }
    }
}
// ANCHOR_END: side

/// Copies padded column `j` of the owned rows into a buffer of `rows` values (ex 4.2).
pub type PackFn = fn(&Field, usize, &mut [f64]);
/// Copies a buffer of `rows` values into padded column `j` of the owned rows (ex 4.2).
pub type UnpackFn = fn(&mut Field, usize, &[f64]);

// ANCHOR: halo
/// The edges to send and the edges received, one buffer per side: North and South hold
/// `cols` values (a row), West and East `rows` values (a column).
pub struct Halo {
    /// `send[side]`: my owned edge on `side`, for the neighbour there.
    pub send: [Vec<f64>; 4],
    /// `recv[side]`: the neighbour's edge on `side`, for my ghost layer there.
    pub recv: [Vec<f64>; 4],
    pack: PackFn,
    unpack: UnpackFn,
}
// ANCHOR_END: halo

impl Halo {
    /// Buffers for a `rows x cols` block, packing columns with your ex 4.2.
    pub fn new(rows: usize, cols: usize) -> Halo {
        Halo::with_packing(
            rows,
            cols,
            crate::pack::pack_column,
            crate::pack::unpack_column,
        )
    }

    /// Buffers that pack columns with the given functions (the tests of ex 4.3-4.5 use
    /// their own, so that those exercises do not depend on ex 4.2).
    pub fn with_packing(rows: usize, cols: usize, pack: PackFn, unpack: UnpackFn) -> Halo {
        let sizes = [cols, cols, rows, rows];
        Halo {
            send: sizes.map(|n| vec![0.0; n]),
            recv: sizes.map(|n| vec![0.0; n]),
            pack,
            unpack,
        }
    }

    // ANCHOR: pack_from
    /// Copies the owned edges of `f` into `send`.
    pub fn pack_from(&mut self, f: &Field) {
        let (rows, cols) = (f.rows, f.cols);
        self.send[Side::North as usize].copy_from_slice(f.owned_row(0));
        self.send[Side::South as usize].copy_from_slice(f.owned_row(rows - 1));
        (self.pack)(f, 1, &mut self.send[Side::West as usize]);
        (self.pack)(f, cols, &mut self.send[Side::East as usize]);
    }

    /// Copies `recv` into the ghost layer of `f`, on the sides that have a neighbour (a
    /// fixed edge keeps its boundary values).
    pub fn unpack_into(&self, f: &mut Field, nb: &Neighbours) {
        let (rows, cols) = (f.rows, f.cols);
        if nb.north.is_some() {
            f.row_mut(0)[1..=cols].copy_from_slice(&self.recv[Side::North as usize]);
        }
        if nb.south.is_some() {
            f.row_mut(rows + 1)[1..=cols].copy_from_slice(&self.recv[Side::South as usize]);
        }
        if nb.west.is_some() {
            (self.unpack)(f, 0, &self.recv[Side::West as usize]);
        }
        if nb.east.is_some() {
            (self.unpack)(f, cols + 1, &self.recv[Side::East as usize]);
        }
    }
    // ANCHOR_END: pack_from
}
