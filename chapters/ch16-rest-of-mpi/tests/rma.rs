//! Checks of ex 16.4 (one-sided RMA): your puts alone (in the tests' fence exchange), then
//! the solver with your exchange between fences, then with post-start-complete-wait, equals the serial solver bit for bit on random grids
//! (fixed and periodic) at 1 to 8 ranks; after one exchange every ghost holds its
//! neighbour's label.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::{exchange_property, RANKS};
use ch04::halo::{Halo, SIDES};
use ch04::topology::Neighbours;
use ch16::exchanges::{Exchange, Parts};
use ch16::inbox::Inbox;
use ch16::window::Window;
use toolkit::mpi_test;

/// The tests' fence exchange around your `put_edges` alone: the epoch, then each ghost
/// side's slot of the inbox copied out.
fn fence_around_your_puts(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    let mut epoch = window.fence();
    ch16::rma::put_edges(&mut epoch, nb, halo, inbox);
    drop(epoch);
    let local = window.local();
    for side in SIDES {
        let ghost = &mut halo.recv[side as usize];
        let n = ghost.len();
        ghost.copy_from_slice(&local[inbox.offset(side)..][..n]);
    }
}

// ANCHOR: ex16_4
mpi_test! {
    fn ex16_4_puts_land_in_the_right_slots(world at RANKS) {
        let parts = Parts { fence: fence_around_your_puts, ..Parts::yours() };
        exchange_property(world, Exchange::Fence, parts)
    }
}

mpi_test! {
    fn ex16_4_fence_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Fence, Parts::yours())
    }
}

mpi_test! {
    fn ex16_4_pscw_matches_serial(world at RANKS) {
        exchange_property(world, Exchange::Pscw, Parts::yours())
    }
}
// ANCHOR_END: ex16_4
