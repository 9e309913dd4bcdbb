//! Given: the heat problem (grid, initial temperature, boundary conditions) and the
//! serial solver every parallel result is compared with, bit for bit.
//!
//! Global cell `(gi, gj)` is row `gi` in `0..rows`, column `gj` in `0..cols`; row 0 is the
//! north edge. Two boundary conditions:
//! - `Fixed`: the cells just outside the grid hold fixed temperatures (north 1.0, south
//!   0.0, west 0.25, east 0.75): a plate heated along its north edge.
//! - `Periodic`: the grid wraps around in both directions (a torus): the cell north of
//!   row 0 is row `rows - 1`, and so on.

use crate::field::Field;
use crate::stencil::{local_residual, update_all};

/// The boundary condition of the global grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Fixed temperatures just outside the grid.
    Fixed,
    /// The grid wraps around in both directions.
    Periodic,
}

/// A heat problem: the global grid's shape and its boundary condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Global rows.
    pub rows: usize,
    /// Global columns.
    pub cols: usize,
    /// Boundary condition.
    pub boundary: Boundary,
}

// ANCHOR: initial
/// The initial temperature of global cell `(gi, gj)`: a hot disc on a cool, wavy plate.
/// Every cell gets its own value, so data from the wrong cell shows as a wrong bit.
pub fn initial(p: &Problem, gi: usize, gj: usize) -> f64 {
    let (y, x) = (gi as f64 / p.rows as f64, gj as f64 / p.cols as f64);
    let disc = if (x - 0.35).powi(2) + (y - 0.6).powi(2) < 0.04 {
        0.9
    } else {
        0.0
    };
    disc + 0.1 * (1.0 + (0.7 * gi as f64 + 1.3 * gj as f64).sin()) / 2.0
}

/// The fixed temperature of the ghost cell at global `(gi, gj)`, which lies outside the
/// grid (`gi` is -1 or `rows`, or `gj` is -1 or `cols`). Corners are never read.
pub fn boundary_value(p: &Problem, gi: isize, gj: isize) -> f64 {
    if gi < 0 {
        1.0
    } else if gi >= p.rows as isize {
        0.0
    } else if gj < 0 {
        0.25
    } else {
        debug_assert!(gj >= p.cols as isize, "({gi}, {gj}) is inside the grid");
        0.75
    }
}
// ANCHOR_END: initial

/// The block of global rows `r0..r0+rows`, columns `c0..c0+cols`, initial values in the
/// owned cells; for `Fixed`, the ghosts that lie outside the grid hold the boundary
/// values (the others are zero until a halo exchange fills them).
pub fn initial_block(p: &Problem, r0: usize, c0: usize, rows: usize, cols: usize) -> Field {
    let mut f = Field::zeros(rows, cols);
    for i in 0..rows + 2 {
        for j in 0..cols + 2 {
            let (gi, gj) = ((r0 + i) as isize - 1, (c0 + j) as isize - 1);
            let inside = (0..p.rows as isize).contains(&gi) && (0..p.cols as isize).contains(&gj);
            let k = f.idx(i, j);
            if inside && (1..=rows).contains(&i) && (1..=cols).contains(&j) {
                f.data[k] = initial(p, gi as usize, gj as usize);
            } else if !inside && p.boundary == Boundary::Fixed {
                f.data[k] = boundary_value(p, gi, gj);
            }
        }
    }
    f
}

/// Periodic boundary on one process: copy the opposite edges into the ghost ring.
fn wrap_ghosts(f: &mut Field) {
    let (rows, cols) = (f.rows, f.cols);
    let last = f.row(rows).to_vec();
    f.row_mut(0).copy_from_slice(&last);
    let first = f.row(1).to_vec();
    f.row_mut(rows + 1).copy_from_slice(&first);
    for i in 1..=rows {
        let row = f.row_mut(i);
        row[0] = row[cols];
        row[cols + 1] = row[1];
    }
}

// ANCHOR: serial
/// Runs `iterations` time steps on one process. Returns the field and the residual
/// (sum of squared changes) of the last step (0.0 after zero steps).
pub fn solve_serial(p: &Problem, iterations: usize) -> (Field, f64) {
    let mut src = initial_block(p, 0, 0, p.rows, p.cols);
    let mut dst = src.clone();
    let mut residual = 0.0;
    for _ in 0..iterations {
        if p.boundary == Boundary::Periodic {
            wrap_ghosts(&mut src);
        }
        update_all(&src, &mut dst);
        residual = local_residual(&src, &dst);
        std::mem::swap(&mut src, &mut dst);
    }
    (src, residual)
}
// ANCHOR_END: serial

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_flows_in_from_the_hot_edge_and_the_residual_shrinks() {
        let p = Problem {
            rows: 12,
            cols: 10,
            boundary: Boundary::Fixed,
        };
        let (f0, _) = solve_serial(&p, 0);
        let (f1, r1) = solve_serial(&p, 1);
        let (f50, r50) = solve_serial(&p, 50);
        assert!(f1.owned_row(0)[5] > f0.owned_row(0)[5]);
        assert!(f50.owned_row(0)[5] > f1.owned_row(0)[5]);
        assert!(r50 < r1 && r50 > 0.0, "{r1} {r50}");
    }

    #[test]
    fn a_periodic_grid_keeps_its_total_heat() {
        let p = Problem {
            rows: 7,
            cols: 9,
            boundary: Boundary::Periodic,
        };
        let total = |f: &Field| f.owned().iter().sum::<f64>();
        let (f0, _) = solve_serial(&p, 0);
        let (f9, _) = solve_serial(&p, 9);
        assert!((total(&f0) - total(&f9)).abs() < 1e-12, "heat leaked");
    }
}
