//! Chapter 10 exercise 10.5: what a straggler costs: the time every rank spent waiting.
//!
//! A collective ends for everyone only once its last rank has arrived (an allreduce's
//! result needs every contribution), so a rank that arrives at `at[k][r]` waits, at the
//! least, until the latest arrival of that collective. Check with `make check CH=10`.
#![allow(unused_variables)] // the stub does not use its arguments yet

// ANCHOR: time_waited
/// For each rank, in rank order, the seconds it waited for the last rank, summed over the
/// collectives: per collective, the latest arrival minus its own. No collectives: 0 for
/// every rank (the rank count is `at[0].len()`, or 0).
pub fn time_waited(at: &[Vec<f64>]) -> Vec<f64> {
    // TODO(ex 10.5): per collective the latest arrival; per rank the sum of (latest - own)
    todo!("ex 10.5: the time each rank waited for the last arrival")
}
// ANCHOR_END: time_waited
