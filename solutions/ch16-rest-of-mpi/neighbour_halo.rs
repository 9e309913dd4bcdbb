//! Exercise 16.3: solution. Compiled instead of the stub by `--features solution`.

use crate::neighbourhood::{alltoallv, Blocks};
use ch04::halo::{Halo, SIDES};
use mpi::topology::CartesianCommunicator;

// ANCHOR: exchange
/// Fills `halo.recv` from the neighbours' `halo.send` with one neighbourhood collective.
pub fn exchange_neighbourhood(cart: &CartesianCommunicator, halo: &mut Halo) {
    let counts: Vec<i32> = SIDES.map(|s| halo.send[s as usize].len() as i32).to_vec();
    let displs: Vec<i32> = counts
        .iter()
        .scan(0, |at, &n| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    let send: Vec<f64> = halo.send.concat();
    let mut recv = vec![0.0; send.len()];
    let blocks = Blocks {
        buf: &send[..],
        counts: &counts,
        displs: &displs,
    };
    alltoallv(cart, blocks, &mut recv, &counts, &displs);
    for (k, side) in SIDES.into_iter().enumerate() {
        let at = displs[k] as usize;
        let n = counts[k] as usize;
        halo.recv[side as usize].copy_from_slice(&recv[at..at + n]);
    }
}
// ANCHOR_END: exchange
