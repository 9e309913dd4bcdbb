//! Checks of ex 4.7 (gather the field on rank 0) on random grids whose blocks differ in
//! size, at 1 to 8 ranks. Every cell holds its global index, so a misplaced value is
//! reported as the cell it came from.
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use crate::common::{ref_neighbours, RANKS};
use ch04::field::Field;
use ch04::gather::gather_field;
use ch04::problem::{Boundary, Problem};
use ch04::topology::Decomposition;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::mpi_test;

mpi_test! {
    fn ex4_7_gather_field(world at RANKS) {
        let problems = (8usize..=30, 8usize..=30).prop_map(|(rows, cols)| Problem {
            rows,
            cols,
            boundary: Boundary::Fixed,
        });
        property(world, "gather_field assembles the global grid on rank 0")
            .cases(24)
            .check(problems, |p| {
                let decomp = Decomposition::new(p, world.size())?;
                let cart = decomp.cartesian(world);
                let coords = ref_neighbours(&cart).coords;
                let (rows, cols) = (decomp.rows_of(coords[0]), decomp.cols_of(coords[1]));
                let mut f = Field::zeros(rows.len(), cols.len());
                for (r, gi) in rows.clone().enumerate() {
                    for (c, gj) in cols.clone().enumerate() {
                        let k = f.idx(r + 1, c + 1);
                        f.data[k] = (gi * p.cols + gj) as f64;
                    }
                }
                match (world.rank(), gather_field(&cart, &decomp, &f)) {
                    (0, None) => Err("rank 0 got None: it must return the grid".into()),
                    (0, Some(all)) => {
                        let want: Vec<f64> = (0..p.rows * p.cols).map(|k| k as f64).collect();
                        exact("the gathered grid (element k must hold k)", &all, &want).map_err(
                            |e| format!("{e}; element k is global cell (k / {0}, k % {0})", p.cols),
                        )
                    }
                    (r, Some(_)) => Err(format!("rank {r} got Some: only rank 0 gets the grid")),
                    (_, None) => Ok(()),
                }
            })
    }
}
