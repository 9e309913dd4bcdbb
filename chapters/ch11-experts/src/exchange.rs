//! Chapter 11 exercise 11.2: dispatch and combine. The rows of the kept (token, choice)
//! pairs go to the ranks that hold their experts, counts first, then the rows in one
//! all-to-all-v; the experts' outputs come back by the reverse exchange and are summed
//! per token, weighted by the gates. Check with `make check CH=11`.
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::config::Layout;
use crate::routing::{Dispatched, Routing};
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use toolkit::split::displacements;

// ANCHOR: exchange_rows
/// An all-to-all-v of rows of `hidden` floats: `send_counts[r]` rows of `rows` (in rank
/// order) go to rank `r`; `recv_counts[s]` rows come from rank `s`, returned in rank
/// order. Both sides must agree: what rank `a` sends to `b` is what `b` expects from `a`.
pub fn exchange_rows(
    world: &SimpleCommunicator,
    rows: &[f32],
    send_counts: &[usize],
    recv_counts: &[usize],
    hidden: usize,
) -> Vec<f32> {
    // TODO(ex 11.2): counts and displacements in floats (as Count), then all_to_all_varcount_into
    todo!("ex 11.2: the rows to every rank in one all-to-all-v")
}
// ANCHOR_END: exchange_rows

// ANCHOR: dispatch
/// Sends the rows of this rank's kept choices (`x` is `tokens × hidden`) to the ranks
/// that hold their experts, and returns what it sent and received ([`Dispatched`]):
/// 1. the kept choices in send order: sorted by expert, token order within one expert;
/// 2. counts first: for each rank, one block of `layout.max_local()` counts (rows for its
///    1st, 2nd, ... expert, 0 past its last), exchanged with one all-to-all;
/// 3. then the rows, with [`exchange_rows`].
pub fn dispatch(
    world: &SimpleCommunicator,
    layout: &Layout,
    routing: &Routing,
    x: &[f32],
    hidden: usize,
) -> Dispatched {
    // TODO(ex 11.2): sort the kept choices by expert, count per (rank, local expert), all_to_all_into, exchange_rows
    todo!("ex 11.2: counts first, then the rows to their experts' ranks")
}
// ANCHOR_END: dispatch

// ANCHOR: combine
/// Sends the experts' `outputs` (one row per received row, in the order received) back
/// to the ranks their tokens came from, and returns this rank's `tokens × hidden`
/// output: for each token, starting from zeros, `gate × expert output` added for each of
/// its kept choices in choice order; a dropped choice adds nothing.
pub fn combine(
    world: &SimpleCommunicator,
    routing: &Routing,
    sent: &Dispatched,
    outputs: &[f32],
) -> Vec<f32> {
    // TODO(ex 11.2): exchange_rows with the counts swapped, then the weighted sum per token in choice order
    todo!("ex 11.2: the outputs back, weighted by the gates")
}
// ANCHOR_END: combine
