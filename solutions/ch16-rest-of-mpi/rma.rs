//! Exercise 16.4: solution. Compiled instead of the stub by `--features solution`.

use crate::inbox::Inbox;
use crate::window::{Epoch, Window};
use ch04::halo::{Halo, SIDES};
use ch04::topology::Neighbours;
use mpi::topology::Rank;

// ANCHOR: put_edges
/// Puts my edges into the neighbours' inboxes, inside an open epoch.
pub fn put_edges<'d>(epoch: &mut Epoch<'_, 'd>, nb: &Neighbours, halo: &'d Halo, inbox: &Inbox) {
    for side in SIDES {
        if let Some(rank) = nb.of(side) {
            let slot = inbox.offset(side.opposite());
            epoch.put(&halo.send[side as usize], rank, slot);
        }
    }
}
// ANCHOR_END: put_edges

/// Copies each side's slot of my inbox into `halo.recv`.
fn read_inbox(window: &Window, halo: &mut Halo, inbox: &Inbox) {
    for side in SIDES {
        let into = &mut halo.recv[side as usize];
        let (at, n) = (inbox.offset(side), into.len());
        into.copy_from_slice(&window.local()[at..at + n]);
    }
}

// ANCHOR: fence
/// One exchange between fences.
pub fn exchange_fence(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    let mut epoch = window.fence();
    put_edges(&mut epoch, nb, halo, inbox);
    epoch.close();
    read_inbox(window, halo, inbox);
}
// ANCHOR_END: fence

// ANCHOR: pscw
/// One exchange with post-start-complete-wait, among neighbours only.
pub fn exchange_pscw(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    let neighbours: Vec<Rank> = SIDES.iter().filter_map(|&s| nb.of(s)).collect();
    let mut epoch = window.post_start(&neighbours, &neighbours);
    put_edges(&mut epoch, nb, halo, inbox);
    epoch.close();
    read_inbox(window, halo, inbox);
}
// ANCHOR_END: pscw
