//! What the chapter's tests share: random problems, reference parts, and the property
//! "the parallel solver equals the serial one bit for bit".
//!
//! The reference parts are written here, in the tests, so that each exercise's test uses
//! only that exercise of yours: the test of ex 4.3 runs the solver with your blocking
//! exchange and these references for everything else.
#![allow(dead_code)] // each test file uses a part

use ch04::field::Field;
use ch04::halo::{Halo, PackFn, UnpackFn, SIDES};
use ch04::problem::{solve_serial, Boundary, Problem};
use ch04::solver::{solve, Parts, Variant};
use ch04::stencil::local_residual;
use ch04::topology::Neighbours;
use mpi::collective::SystemOperation;
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::close_sums;
use toolkit::lockstep::property;

/// Rank counts of the solver checks: 1 to 8, primes (1 x p grids) included.
pub const RANKS: &[u32] = &[1, 2, 3, 4, 5, 6, 8];

/// Cases per property and launch.
pub const CASES: u32 = 40;

/// A random problem and a number of steps.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub problem: Problem,
    pub steps: usize,
}

/// Mostly small grids (1 to 24 each way: fewer rows or columns than ranks included), one
/// case in five a flat or a thin grid whose edges are 2200-4400 values (beyond the eager
/// limit: a blocking send of such an edge waits for its receive).
pub fn cases() -> impl Strategy<Value = Case> {
    let small = (1usize..=24, 1usize..=24);
    let flat = (2usize..=4, 2200usize..=4400);
    let thin = (2200usize..=4400, 2usize..=4);
    let shape = prop_oneof![8 => small, 1 => flat, 1 => thin];
    let boundary = prop_oneof![Just(Boundary::Fixed), Just(Boundary::Periodic)];
    (shape, boundary, 0usize..=5).prop_map(|((rows, cols), boundary, steps)| Case {
        problem: Problem {
            rows,
            cols,
            boundary,
        },
        steps,
    })
}

/// Reference ex 4.1: neighbours by arithmetic on the layout (MPI ranks are row-major).
pub fn ref_neighbours(cart: &CartesianCommunicator) -> Neighbours {
    let layout = cart.get_layout();
    let (dims, coords) = (
        [layout.dims[0], layout.dims[1]],
        [layout.coords[0], layout.coords[1]],
    );
    let at = |axis: usize, delta: i32| {
        let mut c = coords;
        c[axis] += delta;
        if !(0..dims[axis]).contains(&c[axis]) {
            if !layout.periods[axis] {
                return None;
            }
            c[axis] = c[axis].rem_euclid(dims[axis]);
        }
        Some(c[0] * dims[1] + c[1])
    };
    Neighbours {
        north: at(0, -1),
        south: at(0, 1),
        west: at(1, -1),
        east: at(1, 1),
        coords,
        dims,
    }
}

/// Reference ex 4.2, packing: index arithmetic.
pub fn ref_pack(f: &Field, j: usize, out: &mut [f64]) {
    for (r, x) in out.iter_mut().enumerate() {
        *x = f.data[(r + 1) * (f.cols + 2) + j];
    }
}

/// Reference ex 4.2, unpacking.
pub fn ref_unpack(f: &mut Field, j: usize, column: &[f64]) {
    for (r, &x) in column.iter().enumerate() {
        f.data[(r + 1) * (f.cols + 2) + j] = x;
    }
}

/// A reference exchange (for the tests of other exercises): immediate receives and sends.
pub fn ref_exchange(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    let (send, recv) = (&halo.send, &mut halo.recv);
    mpi::request::multiple_scope(8, |scope, requests| {
        for (side, buf) in SIDES.iter().zip(recv.iter_mut()) {
            if let Some(r) = nb.of(*side) {
                let p = cart.process_at_rank(r);
                requests.add(p.immediate_receive_into_with_tag(
                    scope,
                    &mut buf[..],
                    side.opposite().tag(),
                ));
            }
        }
        for (side, buf) in SIDES.iter().zip(send.iter()) {
            if let Some(r) = nb.of(*side) {
                let p = cart.process_at_rank(r);
                requests.add(p.immediate_send_with_tag(scope, &buf[..], side.tag()));
            }
        }
        let mut statuses = vec![];
        requests.wait_all(&mut statuses);
    });
}

/// Reference ex 4.6.
pub fn ref_residual(cart: &CartesianCommunicator, old: &Field, new: &Field) -> f64 {
    let mut total = 0.0;
    cart.all_reduce_into(
        &local_residual(old, new),
        &mut total,
        SystemOperation::sum(),
    );
    total
}

/// Your parts replaced by the references, except those the caller sets again.
pub fn reference_parts() -> Parts {
    Parts {
        neighbours: ref_neighbours,
        pack: ref_pack as PackFn,
        unpack: ref_unpack as UnpackFn,
        residual: ref_residual,
        ..Parts::yours()
    }
}

/// Can `size` ranks share a `rows x cols` grid with at least one row and column each?
pub fn can_split(p: &Problem, size: i32) -> bool {
    (1..=size).any(|a| size % a == 0 && a as usize <= p.rows && (size / a) as usize <= p.cols)
}

/// The ghost layers next to a cell (block row `r`, column `c`), for reports.
fn edge_of(r: usize, c: usize, rows: usize, cols: usize) -> String {
    let near = [
        (r == 0, "north"),
        (r + 1 == rows, "south"),
        (c == 0, "west"),
        (c + 1 == cols, "east"),
    ];
    let sides: Vec<&str> = near.iter().filter(|n| n.0).map(|n| n.1).collect();
    if sides.is_empty() {
        return " (inside the block, next to no ghost)".into();
    }
    let (last, rest) = sides.split_last().expect("not empty");
    let list = if rest.is_empty() {
        last.to_string()
    } else {
        format!("{} and {last}", rest.join(", "))
    };
    format!(": a cell of the block next to its {list} ghosts")
}

/// This rank's block of the parallel run equals the same block of the serial run, bit
/// for bit, and the residual is within the bound of a sum in another order.
pub fn matches_serial(
    world: &SimpleCommunicator,
    case: &Case,
    variant: Variant,
    parts: &Parts,
) -> Result<(), String> {
    let (p, size) = (&case.problem, world.size());
    let run = match solve(world, p, variant, case.steps, 1, 0.0, parts) {
        Ok(run) => run,
        Err(why) => return refused_rightly(&why, p, size),
    };
    let coords = ref_neighbours(&run.cart).coords;
    let (rows, cols) = (run.decomp.rows_of(coords[0]), run.decomp.cols_of(coords[1]));
    let overlapped = variant == Variant::Overlapped;
    differs_from_serial(world.rank(), case, rows, cols, &run.field, overlapped)?;
    let serial_residual = solve_serial(p, case.steps).1;
    // Both residuals add the same rows*cols squares, in another order: within the bound.
    let terms = p.rows * p.cols;
    close_sums::<f64>(
        "global residual",
        &[run.residual],
        &[serial_residual],
        &[serial_residual],
        terms,
    )
}

/// A solver refused `p` at `size` ranks with `why`: right when the ranks cannot share the
/// grid and the message names the problem and the fix.
pub fn refused_rightly(why: &str, p: &Problem, size: i32) -> Result<(), String> {
    if can_split(p, size) {
        return Err(format!("refused a grid {size} ranks can share: {why}"));
    }
    match why.contains("cannot split") && why.contains("Fix:") {
        true => Ok(()),
        false => Err(format!("unclear refusal: {why}")),
    }
}

/// This rank's block (global `rows` x `cols`) after `case.steps` steps equals the same
/// block of the serial run bit for bit; else the first cell that differs, where it lies
/// next to the ghosts, and (`overlapped`: a step that overlaps the exchange) the likely
/// cause when only the ring next to the ghosts differs.
pub fn differs_from_serial(
    rank: i32,
    case: &Case,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    field: &Field,
    overlapped: bool,
) -> Result<(), String> {
    let (serial, _) = solve_serial(&case.problem, case.steps);
    let (mut wrong, mut inside, mut first) = (0, 0, None);
    for (r, gi) in rows.clone().enumerate() {
        for (c, gj) in cols.clone().enumerate() {
            let got = field.owned_row(r)[c];
            let want = serial.owned_row(gi)[gj];
            if got.to_bits() != want.to_bits() {
                let edge = edge_of(r, c, rows.len(), cols.len());
                wrong += 1;
                inside += usize::from(edge.contains("next to no ghost"));
                first.get_or_insert((gi, gj, got, want, edge));
            }
        }
    }
    let Some((gi, gj, got, want, edge)) = first else {
        return Ok(());
    };
    // Overlapped, and only the ring next to the ghosts wrong: it was updated from ghosts
    // that had not arrived (or were not unpacked) yet.
    let why = match overlapped && inside == 0 {
        true => {
            "; only cells next to the ghosts differ: your step_overlapped updates the \
             boundary ring before the ghosts arrive (update it after the wait and the unpack)"
        }
        false => "",
    };
    Err(format!(
        "after {} step(s), rank {rank}'s cell ({gi}, {gj}) is {got:e} but the serial solver \
         has {want:e}{edge} ({wrong} of {} cells of the block differ){why}",
        case.steps,
        rows.len() * cols.len()
    ))
}

/// The property of ex 4.3-4.5: `variant` with `parts` equals the serial solver.
pub fn solver_property(
    world: &SimpleCommunicator,
    variant: Variant,
    parts: Parts,
) -> Result<(), String> {
    let name = format!("the {variant:?} solver equals the serial solver bit for bit");
    property(world, &name)
        .cases(CASES)
        .check(cases(), |case| matches_serial(world, case, variant, &parts))
}
