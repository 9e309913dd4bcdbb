//! Exercise 16.2: solution. Compiled instead of the stub by `--features solution`.

use crate::requests::Plan;
use ch04::field::Field;
use ch04::halo::{Halo, SIDES};
use ch04::topology::Neighbours;
use mpi::topology::CartesianCommunicator;

// ANCHOR: plan
/// The exchange's requests, made once over `halo`'s buffers.
pub fn plan_halo<'c>(cart: &'c CartesianCommunicator, nb: &Neighbours, halo: Halo) -> Plan<'c> {
    let mut plan = Plan::new(cart, halo);
    for side in SIDES {
        if let Some(rank) = nb.of(side) {
            plan.send_init(side, rank, side.tag());
            plan.recv_init(side, rank, side.opposite().tag());
        }
    }
    plan
}
// ANCHOR_END: plan

// ANCHOR: step
/// One exchange with the plan.
pub fn exchange_persistent(plan: &mut Plan, nb: &Neighbours, f: &mut Field) {
    plan.pack_from(f);
    plan.start().wait();
    plan.unpack_into(f, nb);
}
// ANCHOR_END: step
