//! Lab: the heat equation on a plate heated along its north edge, solved in parallel with
//! each of the three halo exchanges, checked bit for bit against the serial solver.
//!
//! Run: `make run CH=04 SOLUTION=1` (or `NP=2`, `NP=6`; `make run CH=04` runs your code).
//! Expect: the process grid, then one row per variant (blocking, sendrecv, overlapped)
//! with the steps to convergence and the time per step split into compute (the stencil)
//! and communication (packing, messages, waiting, the residual's allreduce), each the
//! slowest rank's. All three fields equal the serial solver's bit for bit; the residuals
//! agree within the bound of a sum in another order. The final field is drawn to
//! `target/workbook/ch04-heat.svg`. On a shared 2-core laptop with NP=4 the ranks take
//! turns on the cores: communication times include that waiting.

use ch04::gather::gather_field;
use ch04::heatmap::heatmap_svg;
use ch04::problem::{solve_serial, Boundary, Problem};
use ch04::solver::{solve, Parts, VARIANTS};
use mpi::traits::*;
use tabled::Tabled;
use toolkit::compare::close_sums;
use toolkit::report::{table, write_file, Timing};

/// The plate: rows x columns of cells.
const PROBLEM: Problem = Problem {
    rows: 160,
    cols: 240,
    boundary: Boundary::Fixed,
};
/// At most this many steps; the residual is checked every `EVERY` steps.
const MAX_STEPS: usize = 20_000;
const EVERY: usize = 100;
/// Converged when the 2-norm of one step's change is below this.
const TOLERANCE: f64 = 1e-3;

#[derive(Tabled)]
struct Row {
    variant: String,
    steps: usize,
    #[tabled(rename = "compute µs/step")]
    compute: String,
    #[tabled(rename = "comm µs/step")]
    comm: String,
    #[tabled(rename = "total µs/step")]
    total: String,
    #[tabled(rename = "comm share")]
    share: String,
    #[tabled(rename = "equals serial")]
    exact: &'static str,
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), &PROBLEM);
    let parts = Parts::yours();
    let (mut rows, mut last) = (vec![], None);
    for variant in VARIANTS {
        // ANCHOR: run
        let run = solve(&world, p, variant, MAX_STEPS, EVERY, TOLERANCE, &parts)
            .unwrap_or_else(|why| panic!("{why}"));
        let per_step = |s: f64| Timing::over_ranks(&world, s / run.steps as f64).max * 1e6;
        let (compute, comm) = (per_step(run.compute), per_step(run.comm));
        let total = per_step(run.compute + run.comm);
        let field = gather_field(&run.cart, &run.decomp, &run.field);
        // ANCHOR_END: run
        if rank == 0 {
            let field = field.expect("rank 0 gets the field");
            let (serial, serial_residual) = solve_serial(p, run.steps);
            let exact = field
                .iter()
                .zip(serial.owned())
                .all(|(a, b)| a.to_bits() == b.to_bits());
            rows.push(Row {
                variant: format!("{variant:?}"),
                steps: run.steps,
                compute: format!("{compute:.1}"),
                comm: format!("{comm:.1}"),
                total: format!("{total:.1}"),
                share: format!("{:.0}%", 100.0 * comm / total),
                exact: if exact { "bit for bit" } else { "NO" },
            });
            last = Some((run.decomp, run.residual, serial_residual, run.steps, field));
        }
    }
    let Some((decomp, residual, serial_residual, steps, field)) = last else {
        return;
    };
    let [pr, pc] = decomp.dims;
    println!(
        "{} x {} plate, fixed edges (north 1.0, south 0.0, west 0.25, east 0.75), {} ranks \
         as a {pr} x {pc} process grid; stop when ||change|| < {TOLERANCE:e} (checked \
         every {EVERY} steps)\n",
        p.rows,
        p.cols,
        world.size()
    );
    println!("{}", table(rows));
    println!(
        "{}",
        toolkit::report::oversubscription_note(world.size() as usize)
    );
    let terms = p.rows * p.cols;
    let agree = close_sums::<f64>(
        "residual",
        &[residual],
        &[serial_residual],
        &[serial_residual],
        terms,
    );
    println!(
        "\nresidual after {steps} steps: parallel {residual:.17e}, serial {serial_residual:.17e}, \
         difference {:.1e} (bound 2·γ(n-1)·Σ = {:.1e}: {})",
        (residual - serial_residual).abs(),
        toolkit::compare::sum_tolerance::<f64>(terms, serial_residual),
        if agree.is_ok() { "within" } else { "OUTSIDE" }
    );
    let title = format!("temperature after {steps} steps, {pr} x {pc} ranks (dashed: blocks)");
    let svg = heatmap_svg(&title, &field, &decomp, 48);
    match write_file("ch04-heat.svg", &svg) {
        Ok(path) => println!("heat map: {}", path.display()),
        Err(e) => println!("could not write the heat map: {e}"),
    }
}
