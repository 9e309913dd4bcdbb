//! Given: the communicator the halo exchange runs on, a *distributed graph* of each rank's
//! neighbours. It is made from the Cartesian communicator on its first exchange and cached
//! on it (an MPI attribute, `MPI_Comm_set_attr`), so it is made once and freed with it.
//!
//! Why not the Cartesian communicator itself: along a periodic axis of one or two ranks,
//! a rank's neighbour on both sides of that axis is one and the same rank, so one
//! collective carries two messages between that pair. On a Cartesian communicator the MPI
//! libraries disagree about which of the two fills which receive block: Open MPI 4.1
//! puts the block sent south into the receiver's north block, as the grid wants; MPICH 4.0
//! pairs them in the order they were posted (the first block sent into the first block
//! received), so north and south swap, and so do west and east. A distributed graph
//! lists its neighbours in an order of our choosing, and between one pair of ranks the
//! k-th block sent fills the k-th block received from that sender (MPI's messages between
//! two ranks do not overtake each other). So the sources are listed North, South, West,
//! East (the order of `Side`) and the destinations South, North, East, West: what a rank
//! sends south is what its southern neighbour receives from the north, pair by pair,
//! under any MPI and on any grid.

use crate::given_halo::neighbours;
use ch04::halo::{Side, SIDES};
use mpi::attribute::CommAttribute;
use mpi::ffi;
use mpi::raw::{AsRaw, FromRaw};
use mpi::topology::{AnyCommunicator, CartesianCommunicator, SimpleCommunicator};
use std::rc::Rc;

/// The order of the blocks a rank sends: each goes to the neighbour on that side, which
/// receives it on the opposite side (`Side::opposite`), in the order of [`SIDES`].
pub const SENT_TO: [Side; 4] = [Side::South, Side::North, Side::East, Side::West];

/// A rank's halo graph: the communicator, and the sides its blocks come from and go to
/// (the sides that have a neighbour, in the graph's order).
#[derive(Clone)]
pub struct HaloGraph {
    /// The distributed-graph communicator (`MPI_Dist_graph_create_adjacent`).
    pub comm: Rc<SimpleCommunicator>,
    /// The receive blocks, in order: the sides of [`SIDES`] that have a neighbour.
    pub from: Vec<Side>,
    /// The send blocks, in order: the sides of [`SENT_TO`] that have a neighbour.
    pub to: Vec<Side>,
}

// The attribute is not copied to a duplicate of the Cartesian communicator (rsmpi's
// default), and dropped, freeing the graph, when the Cartesian communicator is freed.
impl CommAttribute for HaloGraph {}

/// The halo graph of `cart`: the cached one, or a new one (collective over `cart` the
/// first time: every rank of `cart` makes its first exchange together).
pub fn halo_graph(cart: &CartesianCommunicator) -> HaloGraph {
    if let Some(cached) = cart.get_attr::<HaloGraph>() {
        return cached.clone();
    }
    let nb = neighbours(cart);
    let from: Vec<Side> = SIDES.into_iter().filter(|&s| nb.of(s).is_some()).collect();
    let to: Vec<Side> = SENT_TO
        .into_iter()
        .filter(|&s| nb.of(s).is_some())
        .collect();
    let ranks = |sides: &[Side]| -> Vec<i32> { sides.iter().filter_map(|&s| nb.of(s)).collect() };
    let (sources, destinations) = (ranks(&from), ranks(&to));
    // SAFETY: a handle is a pointer or an integer: MPI overwrites this one.
    let mut raw: ffi::MPI_Comm = unsafe { ffi::RSMPI_COMM_NULL };
    // SAFETY: the lists hold `len()` valid ranks of `cart`; unweighted; no reordering, so
    // the graph's ranks are `cart`'s; every rank of `cart` makes this call together.
    unsafe {
        ffi::MPI_Dist_graph_create_adjacent(
            cart.as_raw(),
            sources.len() as i32,
            sources.as_ptr(),
            ffi::RSMPI_UNWEIGHTED(),
            destinations.len() as i32,
            destinations.as_ptr(),
            ffi::RSMPI_UNWEIGHTED(),
            ffi::RSMPI_INFO_NULL,
            0,
            &mut raw,
        );
    }
    // SAFETY: a new intracommunicator, ours alone; rsmpi frees it when the last Rc goes.
    let comm = Rc::new(unsafe { SimpleCommunicator::from_raw(raw) });
    let graph = HaloGraph { comm, from, to };
    let boxed = Box::into_raw(Box::new(graph.clone()));
    // SAFETY: the boxed attribute is what rsmpi's `CommAttribute` delete callback unboxes
    // (as its own `set_attr` does, which needs `&mut` only to say that the value changes).
    unsafe {
        let key = HaloGraph::get_key();
        ffi::MPI_Comm_set_attr(cart.as_raw(), key.as_raw(), boxed.cast());
    }
    graph
}
