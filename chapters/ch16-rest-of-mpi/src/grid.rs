//! Given: a rank's block of chapter 4's heat problem, its neighbours, and the time loop.
//!
//! The process grid, the blocks and the Cartesian communicator are chapter 4's
//! ([`ch04::topology::Decomposition`]); the neighbours come from `MPI_Cart_shift` (rsmpi's
//! `shift`), chapter 4's exercise 4.1 answered by MPI itself.

use ch04::field::Field;
use ch04::problem::{initial_block, Problem};
use ch04::stencil::update_all;
use ch04::topology::{Decomposition, Neighbours};
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use std::ops::Range;

/// This rank's neighbours, from `MPI_Cart_shift` along each axis (`None`: a fixed edge,
/// `MPI_PROC_NULL` in C). Chapter 4's exercise 4.1 asks for the same; read this after it.
pub fn neighbours(cart: &CartesianCommunicator) -> Neighbours {
    let along = |axis| cart.shift(axis, 1); // (the rank at - 1, the rank at + 1)
    let ((north, south), (west, east)) = (along(0), along(1));
    let layout = cart.get_layout();
    let pair = |v: &[i32]| [v[0], v[1]];
    Neighbours {
        north,
        south,
        west,
        east,
        coords: pair(&layout.coords),
        dims: pair(&layout.dims),
    }
}

/// A rank's part of the problem: its place in the grid and its field.
pub struct Block {
    /// The process grid and the problem.
    pub decomp: Decomposition,
    /// The Cartesian communicator (never reordered: a rank keeps its number).
    pub cart: CartesianCommunicator,
    /// This rank's neighbours.
    pub nb: Neighbours,
    /// The global rows this rank owns.
    pub rows: Range<usize>,
    /// The global columns this rank owns.
    pub cols: Range<usize>,
    /// The block at time 0, ghosts holding the fixed boundary where there is one.
    pub field: Field,
}

impl Block {
    /// This rank's block of `problem` over the ranks of `world` (collective: it makes the
    /// Cartesian communicator). Refuses, on every rank alike, a grid the ranks cannot share.
    pub fn new(world: &SimpleCommunicator, problem: &Problem) -> Result<Block, String> {
        let decomp = Decomposition::new(problem, world.size())?;
        let cart = decomp.cartesian(world);
        let nb = neighbours(&cart);
        let (rows, cols) = (decomp.rows_of(nb.coords[0]), decomp.cols_of(nb.coords[1]));
        let field = initial_block(problem, rows.start, cols.start, rows.len(), cols.len());
        Ok(Block {
            decomp,
            cart,
            nb,
            rows,
            cols,
            field,
        })
    }
}

/// Runs `steps` time steps from `field`: each step `fill_ghosts` fills the ghost layer of
/// the current field from the neighbours, then every owned cell is updated (chapter 4's
/// stencil). Returns the field after the last step.
pub fn run_steps(field: &Field, steps: usize, mut fill_ghosts: impl FnMut(&mut Field)) -> Field {
    let mut src = field.clone();
    let mut dst = field.clone(); // the fixed boundary's ghosts live in both
    for _ in 0..steps {
        fill_ghosts(&mut src);
        update_all(&src, &mut dst);
        std::mem::swap(&mut src, &mut dst);
    }
    src
}
