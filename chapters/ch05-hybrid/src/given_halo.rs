//! Given: a rank's block of the heat problem and a halo exchange that works, so this
//! chapter's checks depend only on this chapter's exercises (chapter 4's exchanges are
//! exercises there).
//!
//! The exchange is chapter 4's `MPI_Sendrecv` exchange, four shifts, called by the main
//! thread only: it checks that first ([`crate::threading::assert_main_thread`]). The time
//! spent in it is added up per rank ([`exchange_seconds`]) for the labs' tables.

use crate::threading::assert_main_thread;
use ch04::field::Field;
use ch04::halo::{Halo, Side};
use ch04::problem::{initial_block, Problem};
use ch04::topology::{Decomposition, Neighbours};
use mpi::point_to_point as p2p;
use mpi::topology::CartesianCommunicator;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::ops::Range;
use std::time::Instant;

thread_local! {
    static EXCHANGE_SECONDS: Cell<f64> = const { Cell::new(0.0) };
}

/// Seconds this thread has spent in [`exchange`] so far.
pub fn exchange_seconds() -> f64 {
    EXCHANGE_SECONDS.with(Cell::get)
}

/// This rank's neighbours, from the Cartesian communicator (chapter 4's ex 4.1).
pub fn neighbours(cart: &CartesianCommunicator) -> Neighbours {
    let layout = cart.get_layout();
    let (north, south) = cart.shift(0, 1);
    let (west, east) = cart.shift(1, 1);
    Neighbours {
        north,
        south,
        west,
        east,
        coords: [layout.coords[0], layout.coords[1]],
        dims: [layout.dims[0], layout.dims[1]],
    }
}

/// Copies padded column `j` of the owned rows into `out` (chapter 4's ex 4.2).
pub fn pack_column(f: &Field, j: usize, out: &mut [f64]) {
    for (r, x) in out.iter_mut().enumerate() {
        *x = f.data[f.idx(r + 1, j)];
    }
}

/// Copies `column` into padded column `j` of the owned rows.
pub fn unpack_column(f: &mut Field, j: usize, column: &[f64]) {
    for (r, &x) in column.iter().enumerate() {
        let k = f.idx(r + 1, j);
        f.data[k] = x;
    }
}

/// The halo buffers of a `rows x cols` block.
pub fn new_halo(rows: usize, cols: usize) -> Halo {
    Halo::with_packing(rows, cols, pack_column, unpack_column)
}

// ANCHOR: exchange
/// Fills `halo.recv` from the neighbours' `halo.send`: one `MPI_Sendrecv` per shift.
/// Main thread only (it panics elsewhere). Pack before, unpack after.
pub fn exchange(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    assert_main_thread("the halo exchange (MPI_Sendrecv)");
    let start = Instant::now();
    const SHIFTS: [(Side, Side); 4] = [
        (Side::South, Side::North),
        (Side::North, Side::South),
        (Side::East, Side::West),
        (Side::West, Side::East),
    ];
    for (to, from) in SHIFTS {
        let (out, into) = (&halo.send[to as usize], &mut halo.recv[from as usize]);
        let tag = to.tag();
        match (nb.of(to), nb.of(from)) {
            (Some(d), Some(s)) => {
                let (dest, src) = (cart.process_at_rank(d), cart.process_at_rank(s));
                p2p::send_receive_into_with_tags(&out[..], &dest, tag, &mut into[..], &src, tag);
            }
            (Some(d), None) => cart.process_at_rank(d).send_with_tag(&out[..], tag),
            (None, Some(s)) => {
                cart.process_at_rank(s)
                    .receive_into_with_tag(&mut into[..], tag);
            }
            (None, None) => {}
        }
    }
    let t = start.elapsed().as_secs_f64();
    EXCHANGE_SECONDS.with(|s| s.set(s.get() + t));
}
// ANCHOR_END: exchange

/// A rank's share of a problem: where it sits, its block (two copies: `src` and `dst`),
/// and its halo buffers.
pub struct Block {
    /// The process grid.
    pub decomp: Decomposition,
    /// The Cartesian communicator.
    pub cart: CartesianCommunicator,
    /// This rank's neighbours.
    pub nb: Neighbours,
    /// Global rows of the block.
    pub rows: Range<usize>,
    /// Global columns of the block.
    pub cols: Range<usize>,
    /// The field of this step (its ghosts are filled before the update).
    pub src: Field,
    /// The field of the next step.
    pub dst: Field,
    /// Halo buffers.
    pub halo: Halo,
}

impl Block {
    /// Splits `problem` over the ranks of `world` and builds this rank's block (refuses,
    /// on every rank, a grid the ranks cannot share).
    pub fn new(world: &SimpleCommunicator, problem: &Problem) -> Result<Block, String> {
        let decomp = Decomposition::new(problem, world.size())?;
        let cart = decomp.cartesian(world);
        let nb = neighbours(&cart);
        let (rows, cols) = (decomp.rows_of(nb.coords[0]), decomp.cols_of(nb.coords[1]));
        let src = initial_block(problem, rows.start, cols.start, rows.len(), cols.len());
        Ok(Block {
            decomp,
            cart,
            nb,
            dst: src.clone(), // the fixed boundary's ghosts live in both
            src,
            halo: new_halo(rows.len(), cols.len()),
            rows,
            cols,
        })
    }
}
