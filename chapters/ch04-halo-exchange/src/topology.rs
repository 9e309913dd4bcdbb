//! Given: how the global grid is split over the ranks, and the Cartesian communicator.
//!
//! `p` ranks form a `dims[0] x dims[1]` process grid (rows of ranks x columns of ranks).
//! The rank at process coordinates `(pr, pc)` owns global rows `block_range(rows,
//! dims[0], pr)` and columns `block_range(cols, dims[1], pc)`. MPI numbers the ranks of a
//! Cartesian communicator row-major: rank = pr * dims[1] + pc (we never let MPI reorder).
//!
//! rsmpi 0.8.2 has no wrapper for `MPI_Dims_create`, and its `coordinates_to_rank` panics
//! on coordinate 0 of a non-periodic axis: both go through `mpi::ffi` here.

use crate::problem::{Boundary, Problem};
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{CartesianCommunicator, Rank, SimpleCommunicator};
use mpi::traits::*;
use std::ops::Range;

/// Who is next to this rank, and where it sits in the process grid (ex 4.1 fills it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbours {
    /// The rank owning the rows above (process row - 1); `None` at a fixed north edge.
    pub north: Option<Rank>,
    /// The rank owning the rows below (process row + 1).
    pub south: Option<Rank>,
    /// The rank owning the columns to the left (process column - 1).
    pub west: Option<Rank>,
    /// The rank owning the columns to the right (process column + 1).
    pub east: Option<Rank>,
    /// This rank's process coordinates `[row, column]`.
    pub coords: [i32; 2],
    /// The process grid: `[rows of ranks, columns of ranks]`.
    pub dims: [i32; 2],
}

/// The `k`-th of `parts` nearly equal ranges of `0..n`: the first `n % parts` ranges get
/// one element more (the toolkit's answer to exercise 0.1).
pub use toolkit::split::block_range;

// ANCHOR: dims_create
/// MPI's balanced 2-D process grid for `size` ranks, larger extent first (12 -> [4, 3]).
pub fn dims_create(size: i32) -> [i32; 2] {
    let mut dims = [0i32; 2];
    // SAFETY: `dims` holds the 2 ints MPI_Dims_create reads and writes (ndims = 2), and
    // outlives the call.
    let rc = unsafe { ffi::MPI_Dims_create(size, 2, dims.as_mut_ptr()) };
    assert_eq!(rc, 0, "MPI_Dims_create({size}) failed");
    dims
}

/// The rank at process coordinates `coords` (`MPI_Cart_rank`; periodic axes wrap).
pub fn cart_rank(cart: &CartesianCommunicator, coords: [i32; 2]) -> Rank {
    let mut rank = 0;
    // SAFETY: `cart` is a live Cartesian communicator of 2 dimensions, so MPI_Cart_rank
    // reads exactly the 2 ints of `coords` and writes one int into `rank`.
    let rc = unsafe { ffi::MPI_Cart_rank(cart.as_raw(), coords.as_ptr(), &mut rank) };
    assert_eq!(rc, 0, "MPI_Cart_rank({coords:?}) failed");
    rank
}
// ANCHOR_END: dims_create

/// A problem split over a process grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// The global problem.
    pub problem: Problem,
    /// The process grid `[rows of ranks, columns of ranks]`.
    pub dims: [i32; 2],
}

// ANCHOR: choose
impl Decomposition {
    /// Chooses the process grid for `size` ranks: MPI's balanced grid, its longer side
    /// along the grid's longer side. If a block would get no row or no column, the grid
    /// `a x b = size` with `a <= rows`, `b <= cols` and the smallest blocks' perimeter;
    /// if there is none, an error that names the problem and the fix. Every rank computes
    /// the same answer, so all refuse together, before any communication.
    pub fn new(problem: &Problem, size: i32) -> Result<Decomposition, String> {
        let (rows, cols) = (problem.rows, problem.cols);
        let [big, small] = dims_create(size);
        let mut dims = if rows >= cols {
            [big, small]
        } else {
            [small, big]
        };
        let fits = |d: [i32; 2]| d[0] as usize <= rows && d[1] as usize <= cols;
        if !fits(dims) {
            let perimeter =
                |d: [i32; 2]| rows.div_ceil(d[0] as usize) + cols.div_ceil(d[1] as usize);
            let candidates = (1..=size).filter(|a| size % a == 0).map(|a| [a, size / a]);
            dims = candidates
                .filter(|&d| fits(d))
                .min_by_key(|&d| perimeter(d))
                .ok_or_else(|| {
                    format!(
                        "cannot split a {rows} x {cols} grid over {size} ranks: every rank needs \
                         at least one row and one column, and no process grid a x b = {size} has \
                         a <= {rows} and b <= {cols}. Fix: run with fewer ranks (NP) or use a \
                         larger grid"
                    )
                })?;
        }
        Ok(Decomposition {
            problem: *problem,
            dims,
        })
    }
    // ANCHOR_END: choose

    /// Global rows owned by process row `pr`.
    pub fn rows_of(&self, pr: i32) -> Range<usize> {
        block_range(self.problem.rows, self.dims[0] as usize, pr as usize)
    }

    /// Global columns owned by process column `pc`.
    pub fn cols_of(&self, pc: i32) -> Range<usize> {
        block_range(self.problem.cols, self.dims[1] as usize, pc as usize)
    }

    // ANCHOR: cartesian
    /// The Cartesian communicator over `world`: periodic in both directions when the
    /// problem is, never reordered (so a rank keeps its number).
    pub fn cartesian(&self, world: &SimpleCommunicator) -> CartesianCommunicator {
        let periodic = self.problem.boundary == Boundary::Periodic;
        world
            .create_cartesian_communicator(&self.dims, &[periodic, periodic], false)
            .expect("every rank is part of the process grid")
    }
    // ANCHOR_END: cartesian
}
