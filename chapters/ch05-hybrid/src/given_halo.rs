//! Given: a rank's block of the heat problem and a halo exchange that works, so this
//! chapter's checks depend only on this chapter's exercises (chapter 4's exchanges are
//! exercises there).
//!
//! The exchange is MPI's own: a neighbourhood collective, on a graph of the Cartesian
//! communicator's neighbours ([`crate::halo_graph`]: why not on the Cartesian
//! communicator itself), with columns packed by an MPI datatype. (Chapter 4's exercises build the same thing by
//! hand; this file gives none of their answers.) It is called by the main thread only and
//! checks that first ([`crate::threading::assert_main_thread`]). The time spent in it is
//! added up per rank ([`exchange_seconds`]) for the labs' tables.

use crate::halo_graph::halo_graph;
use crate::threading::assert_main_thread;
use ch04::field::Field;
use ch04::halo::{Halo, Side};
use ch04::problem::{initial_block, Problem};
use ch04::topology::{cart_rank, Decomposition, Neighbours};
use mpi::ffi;
use mpi::raw::AsRaw;
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

/// This rank's neighbours: its coordinates one step along each axis (wrapped on a
/// periodic axis, none past a fixed edge), turned into ranks by `MPI_Cart_rank`.
pub fn neighbours(cart: &CartesianCommunicator) -> Neighbours {
    let layout = cart.get_layout();
    let dims = [layout.dims[0], layout.dims[1]];
    let coords = [layout.coords[0], layout.coords[1]];
    let step = |axis: usize, delta: i32| {
        let mut at = coords;
        at[axis] += delta;
        let inside = (0..dims[axis]).contains(&at[axis]);
        (inside || layout.periods[axis]).then(|| {
            at[axis] = at[axis].rem_euclid(dims[axis]);
            cart_rank(cart, at)
        })
    };
    Neighbours {
        north: step(0, -1),
        south: step(0, 1),
        west: step(1, -1),
        east: step(1, 1),
        coords,
        dims,
    }
}

/// A column of the padded field as an MPI datatype: `rows` doubles, one every `stride`.
/// MPI walks the stride itself (`MPI_Pack` / `MPI_Unpack`), no loop of ours.
struct Column(ffi::MPI_Datatype);

impl Column {
    fn new(f: &Field) -> Column {
        // SAFETY: a handle is a pointer or an integer: zero is a valid value to overwrite.
        let mut t: ffi::MPI_Datatype = unsafe { std::mem::zeroed() };
        let (rows, stride) = (f.rows as i32, f.stride() as i32);
        // SAFETY: creates and commits a new datatype from a predefined one; `t` is ours.
        unsafe {
            ffi::MPI_Type_vector(rows, 1, stride, ffi::RSMPI_DOUBLE, &mut t);
            ffi::MPI_Type_commit(&mut t);
        }
        Column(t)
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        // SAFETY: frees the datatype this value created and owns.
        unsafe { ffi::MPI_Type_free(&mut self.0) };
    }
}

/// Copies padded column `j` of the owned rows into `out`, with MPI's packing.
pub fn pack_column(f: &Field, j: usize, out: &mut [f64]) {
    let column = Column::new(f);
    let bytes = std::mem::size_of_val(out) as i32;
    let mut position = 0;
    // SAFETY: the column starts at padded cell (1, j) and its last element, (rows, j), lies
    // inside `f.data`; `out` holds `rows` doubles, the packed size of one column.
    unsafe {
        let start = f.data.as_ptr().add(f.idx(1, j));
        let (out, world) = (out.as_mut_ptr().cast(), ffi::RSMPI_COMM_SELF);
        ffi::MPI_Pack(start.cast(), 1, column.0, out, bytes, &mut position, world);
    }
}

/// Copies `column` into padded column `j` of the owned rows, with MPI's unpacking.
pub fn unpack_column(f: &mut Field, j: usize, column: &[f64]) {
    let datatype = Column::new(f);
    let bytes = std::mem::size_of_val(column) as i32;
    let mut position = 0;
    let start = f.idx(1, j);
    // SAFETY: as in `pack_column`, the strided column lies inside `f.data`.
    unsafe {
        let into = f.data.as_mut_ptr().add(start);
        let (from, world) = (column.as_ptr().cast(), ffi::RSMPI_COMM_SELF);
        ffi::MPI_Unpack(
            from,
            bytes,
            &mut position,
            into.cast(),
            1,
            datatype.0,
            world,
        );
    }
}

/// The halo buffers of a `rows x cols` block.
pub fn new_halo(rows: usize, cols: usize) -> Halo {
    Halo::with_packing(rows, cols, pack_column, unpack_column)
}

// ANCHOR: exchange
/// Fills `halo.recv` from the neighbours' `halo.send` with MPI's own halo exchange, the
/// neighbourhood collective `MPI_Neighbor_alltoallv`, on the halo graph of `cart`
/// ([`halo_graph`]): one block to each neighbour, one from each (a fixed edge has no
/// neighbour, so no block). Main thread only (it panics elsewhere). Pack before, unpack
/// after.
pub fn exchange(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    assert_main_thread("the halo exchange (MPI_Neighbor_alltoallv)");
    let _ = nb; // MPI knows the neighbours from the graph
    let graph = halo_graph(cart); // made on the first call, then cached
    let start = Instant::now();
    let (sent, got) = (
        blocks(&halo.send, &graph.to),
        blocks(&halo.recv, &graph.from),
    );
    let send: Vec<f64> = graph
        .to
        .iter()
        .flat_map(|&s| &halo.send[s as usize])
        .copied()
        .collect();
    let mut recv = vec![0.0; got.0.iter().sum::<i32>() as usize];
    // SAFETY: each buffer holds its blocks at the counts and displacements just computed
    // from the blocks' own lengths, in the graph's order; every rank of `cart` calls.
    unsafe {
        ffi::MPI_Neighbor_alltoallv(
            send.as_ptr().cast(),
            sent.0.as_ptr(),
            sent.1.as_ptr(),
            ffi::RSMPI_DOUBLE,
            recv.as_mut_ptr().cast(),
            got.0.as_ptr(),
            got.1.as_ptr(),
            ffi::RSMPI_DOUBLE,
            graph.comm.as_raw(),
        );
    }
    for (k, &side) in graph.from.iter().enumerate() {
        let (at, n) = (got.1[k] as usize, got.0[k] as usize);
        halo.recv[side as usize].copy_from_slice(&recv[at..at + n]);
    }
    let t = start.elapsed().as_secs_f64();
    EXCHANGE_SECONDS.with(|s| s.set(s.get() + t));
}
// ANCHOR_END: exchange

/// The counts and displacements of the blocks `bufs[side]`, one per side of `sides`.
fn blocks(bufs: &[Vec<f64>; 4], sides: &[Side]) -> (Vec<i32>, Vec<i32>) {
    let counts: Vec<i32> = sides
        .iter()
        .map(|&s| bufs[s as usize].len() as i32)
        .collect();
    let displs = counts
        .iter()
        .scan(0, |at, &n| Some(std::mem::replace(at, *at + n)))
        .collect();
    (counts, displs)
}

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
