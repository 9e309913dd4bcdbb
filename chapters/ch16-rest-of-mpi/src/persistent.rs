//! Exercise 16.2: the halo exchange with persistent requests: its eight messages set up
//! once, before the first step, and started every step.
//!
//! Check: `make check CH=16` (test `ex16_2_*`: the solver with your plan and step against
//! the serial solver, bit for bit, at 1 to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::requests::Plan;
use ch04::field::Field;
use ch04::halo::{Halo, Side, SIDES};
use ch04::topology::Neighbours;
use mpi::topology::CartesianCommunicator;

// ANCHOR: plan
/// The exchange's requests, made once over `halo`'s buffers: for each side with a
/// neighbour, a send of `halo.send[side]` to it tagged `side.tag()`
/// ([`Plan::send_init`]), and a receive into `halo.recv[side]` from it of the message it
/// sent towards me, tagged `side.opposite().tag()` ([`Plan::recv_init`]). A side with no
/// neighbour gets no request.
pub fn plan_halo<'c>(cart: &'c CartesianCommunicator, nb: &Neighbours, halo: Halo) -> Plan<'c> {
    // TODO(ex 16.2): Plan::new, then a send_init and a recv_init per side with a neighbour
    todo!("ex 16.2: make the exchange's persistent requests once")
}
// ANCHOR_END: plan

// ANCHOR: step
/// One exchange with the plan: pack the owned edges of `f`, start every request, wait for
/// them, unpack into the ghost layer of `f`.
pub fn exchange_persistent(plan: &mut Plan, nb: &Neighbours, f: &mut Field) {
    // TODO(ex 16.2): pack_from, start, wait, unpack_into
    todo!("ex 16.2: one exchange with the persistent requests")
}
// ANCHOR_END: step
