//! Exercise 16.4: the halo exchange one-sided: each rank puts its edges into its
//! neighbours' windows (`MPI_Put`), synchronised by fences, then by
//! post-start-complete-wait.
//!
//! Check: `make check CH=16` (tests `ex16_4_*`: the solver with each of your exchanges
//! against the serial solver, bit for bit, at 1 to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::inbox::Inbox;
use crate::window::{Epoch, Window};
use ch04::halo::{Halo, Side, SIDES};
use ch04::topology::Neighbours;
use mpi::topology::Rank;

// ANCHOR: put_edges
/// Inside an open epoch: for each side with a neighbour, put my edge `halo.send[side]`
/// into that neighbour's inbox, in the slot of the ghost side it fills there
/// (`inbox.offset(side.opposite())`: my north edge is my north neighbour's south ghost).
pub fn put_edges<'d>(epoch: &mut Epoch<'_, 'd>, nb: &Neighbours, halo: &'d Halo, inbox: &Inbox) {
    // TODO(ex 16.4): one epoch.put per side with a neighbour
    todo!("ex 16.4: put the four edges into the neighbours' inboxes")
}
// ANCHOR_END: put_edges

// ANCHOR: fence
/// One exchange between fences: open a fence epoch on `window` (every rank), put the
/// edges, close it; then copy each side's slot of my window (`window.local()`, the first
/// `halo.recv[side].len()` doubles at `inbox.offset(side)`) into `halo.recv[side]`.
pub fn exchange_fence(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    // TODO(ex 16.4): fence, put_edges, close, then read the inbox
    todo!("ex 16.4: the exchange between two fences")
}
// ANCHOR_END: fence

// ANCHOR: pscw
/// The same exchange with post-start-complete-wait: the epoch opened by
/// `window.post_start(origins, targets)`, where the origins (the ranks that put into my
/// window) and the targets (the ranks I put into) are both my neighbours; then the puts,
/// the close, and the inbox read as in [`exchange_fence`]. Only neighbours take part: no
/// rank waits for the whole window.
pub fn exchange_pscw(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    // TODO(ex 16.4): the neighbours as both groups, post_start, put_edges, close, read
    todo!("ex 16.4: the exchange with post-start-complete-wait")
}
// ANCHOR_END: pscw
