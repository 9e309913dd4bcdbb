//! Exercise 4.1: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::topology::Neighbours;
use mpi::topology::CartesianCommunicator;

// ANCHOR: neighbours
/// This rank's four neighbours and its place in the process grid.
pub fn neighbours(cart: &CartesianCommunicator) -> Neighbours {
    let layout = cart.get_layout();
    // MPI_Cart_shift(dim, +1) returns (the rank at coordinate - 1, the rank at + 1);
    // off a non-periodic edge it returns MPI_PROC_NULL, which rsmpi turns into None.
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
// ANCHOR_END: neighbours
