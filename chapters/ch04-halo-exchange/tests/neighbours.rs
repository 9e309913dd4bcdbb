//! Checks of ex 4.1 (neighbours from the Cartesian topology) at 1 to 8 ranks, on fixed
//! and periodic grids of random shape (so process grids of every orientation occur).
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use crate::common::{ref_neighbours, RANKS};
use ch04::neighbours::neighbours;
use ch04::problem::{Boundary, Problem};
use ch04::topology::Decomposition;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::lockstep::property;
use toolkit::mpi_test;

mpi_test! {
    fn ex4_1_neighbours(world at RANKS) {
        let periodic = prop_oneof![Just(Boundary::Fixed), Just(Boundary::Periodic)];
        let problems =
            (8usize..=40, 8usize..=40, periodic).prop_map(|(rows, cols, boundary)| Problem {
                rows,
                cols,
                boundary,
            });
        property(
            world,
            "neighbours() names the four neighbours and the coordinates",
        )
        .cases(12)
        .check(problems, |p| {
            let cart = Decomposition::new(p, world.size())?.cartesian(world);
            let (got, want) = (neighbours(&cart), ref_neighbours(&cart));
            if got == want {
                return Ok(());
            }
            Err(format!(
                "rank {} at process coordinates {:?} of a {:?} grid ({:?}): got {got:?}, \
                     expected {want:?}",
                world.rank(),
                want.coords,
                want.dims,
                p.boundary
            ))
        })
    }
}
