//! What the chapter's tests share: random problems, reference parts, and the properties
//! "the hybrid solver equals the serial one bit for bit" and "each thread gets its
//! partner's message".
//!
//! The reference parts are written here, in the tests, so that each exercise's test uses
//! only that exercise of yours.
#![allow(dead_code)] // each test file uses a part

use ch04::field::Field;
use ch04::halo::Halo;
use ch04::problem::{solve_serial, Boundary, Problem};
use ch04::stencil::update_all;
use ch04::topology::Neighbours;
use ch05::given_halo::exchange;
use ch05::hybrid_solver::{solve_hybrid, Parts, Variant};
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use proptest::collection::vec;
use proptest::prelude::*;
use rayon::ThreadPool;
use toolkit::compare::close_sums;
use toolkit::lockstep::property;

/// Rank counts of the checks.
pub const RANKS: &[u32] = &[1, 2, 3, 4];

/// Cases per property and launch.
pub const CASES: u32 = 24;

/// A random problem, a number of steps, and threads per rank.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub problem: Problem,
    pub steps: usize,
    pub threads: usize,
}

/// Grids of 1 to 40 each way (fewer rows than threads or ranks included), fixed or
/// periodic, 0 to 4 steps, 1 to 4 threads per rank.
pub fn cases() -> impl Strategy<Value = Case> {
    let boundary = prop_oneof![Just(Boundary::Fixed), Just(Boundary::Periodic)];
    (1usize..=40, 1usize..=40, boundary, 0usize..=4, 1usize..=4).prop_map(
        |(rows, cols, boundary, steps, threads)| Case {
            problem: Problem {
                rows,
                cols,
                boundary,
            },
            steps,
            threads,
        },
    )
}

/// Reference ex 5.2: one thread, chapter 4's update.
pub fn ref_update(_pool: &ThreadPool, src: &Field, dst: &mut Field) {
    update_all(src, dst);
}

/// Reference ex 5.3: no overlap at all: exchange, then the whole update.
pub fn ref_overlapped(
    _pool: &ThreadPool,
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    halo.pack_from(src);
    exchange(cart, nb, halo);
    halo.unpack_into(src, nb);
    update_all(src, dst);
}

/// The reference parts.
pub fn reference_parts() -> Parts {
    Parts {
        update: ref_update,
        overlapped: ref_overlapped,
    }
}

/// Can `size` ranks share a `rows x cols` grid with at least one row and column each?
pub fn can_split(p: &Problem, size: i32) -> bool {
    (1..=size).any(|a| size % a == 0 && a as usize <= p.rows && (size / a) as usize <= p.cols)
}

/// This rank's block of the hybrid run equals the same block of the serial run, bit for
/// bit, and the residual is within the bound of a sum in another order.
pub fn matches_serial(
    world: &SimpleCommunicator,
    case: &Case,
    variant: Variant,
    parts: &Parts,
) -> Result<(), String> {
    let (p, size) = (&case.problem, world.size());
    let run = match solve_hybrid(world, p, case.threads, variant, case.steps, parts) {
        Ok(run) => run,
        Err(why) if !can_split(p, size) && why.contains("cannot split") => return Ok(()),
        Err(why) => return Err(format!("refused a grid {size} ranks can share: {why}")),
    };
    let (rank, b) = (world.rank(), &run.block);
    let (serial, serial_residual) = solve_serial(p, case.steps);
    let (mut wrong, mut first) = (0, None);
    for (r, gi) in b.rows.clone().enumerate() {
        for (c, gj) in b.cols.clone().enumerate() {
            let got = b.src.owned_row(r)[c];
            let want = serial.owned_row(gi)[gj];
            if got.to_bits() != want.to_bits() {
                wrong += 1;
                first.get_or_insert((gi, gj, r, c, got, want));
            }
        }
    }
    if let Some((gi, gj, r, c, got, want)) = first {
        let (rows, cols) = (b.rows.len(), b.cols.len());
        let suspects = suspects(variant, case.threads, (r, c), (rows, cols));
        return Err(format!(
            "after {} step(s) with {} thread(s) per rank, rank {rank}'s cell ({gi}, {gj}) is \
             {got:e} but the serial solver has {want:e} (rows and columns counted from 0 here): \
             row {r} of the block's rows 0..{rows}, column {c} of 0..{cols}; {suspects} \
             ({wrong} of {} cells of the block differ)",
            case.steps,
            case.threads,
            rows * cols
        ));
    }
    close_sums::<f64>(
        "global residual",
        &[run.residual],
        &[serial_residual],
        &[serial_residual],
        p.rows * p.cols,
    )
}

/// Where a wrong cell at block row `r`, column `c` points. Ex 5.2 (the test's exchange
/// fills the ghosts): the first or last row of a thread's band (rows cut as `block_range`
/// cuts them), the first or last column. Ex 5.3: the boundary ring (updated after the
/// unpack), else the first or last row of an interior band (rows `1..rows - 1`).
fn suspects(variant: Variant, threads: usize, at: (usize, usize), size: (usize, usize)) -> String {
    let ((r, c), (rows, cols)) = (at, size);
    let ring = r == 0 || c == 0 || r + 1 == rows || c + 1 == cols;
    let mut out = vec![];
    if variant == Variant::Overlapped && ring {
        out.push("a cell on the block's boundary ring (next to the ghosts), updated after the ghosts are unpacked".to_string());
    }
    // The rows the bands share: all of them (ex 5.2), or the interior's (ex 5.3).
    let (skip, banded) = match variant {
        Variant::Threaded => (0, rows),
        Variant::Overlapped => (1, rows.saturating_sub(2)),
    };
    if out.is_empty() && banded > 0 {
        let bands = threads.min(banded).max(1);
        let of = |t| toolkit::split::block_range(banded, bands, t);
        let t = (0..bands)
            .find(|&t| of(t).contains(&(r - skip)))
            .unwrap_or(0);
        let (a, b) = (skip + of(t).start, skip + of(t).end);
        if r == a || r + 1 == b {
            let which = if r == a { "first" } else { "last" };
            out.push(format!(
                "the {which} row of thread {t}'s band (rows {a}..{b} of the block, {bands} \
                 band(s) cut as `block_range` cuts them): check the band's slice of `dst.data` \
                 and the `first` row handed to `update_band`"
            ));
        }
    }
    if variant == Variant::Threaded && (c == 0 || c + 1 == cols) {
        out.push("in the block's first or last column: `update_band`'s columns are the padded `1..cols + 1`".into());
    }
    if out.is_empty() {
        out.push("a cell inside a band, next to no ghost: the update itself differs".into());
    }
    format!("it is {}", out.join("; or it is "))
}

/// The property of ex 5.2 and 5.3: `variant` with `parts` equals the serial solver.
pub fn solver_property(
    world: &SimpleCommunicator,
    variant: Variant,
    parts: Parts,
) -> Result<(), String> {
    let name = format!("the {variant:?} hybrid solver equals the serial solver bit for bit");
    property(world, &name)
        .cases(CASES)
        .check(cases(), |case| matches_serial(world, case, variant, &parts))
}

/// A ring shift over threads: ex 5.4's signature.
pub type RingFn = fn(&SimpleCommunicator, &[Vec<f64>]) -> Vec<Vec<f64>>;

/// The message thread `t` of `rank` sends: `len` values, each naming its sender
/// (`100 * rank + t`, plus a fraction that numbers the value).
pub fn message(rank: i32, t: usize, len: usize) -> Vec<f64> {
    (0..len)
        .map(|k| (100 * rank as usize + t) as f64 + k as f64 / 1024.0)
        .collect()
}

/// Who sent a message, read from its first value: `(rank, thread)`.
fn sender(values: &[f64]) -> Option<(i32, usize)> {
    let v = *values.first()?;
    (v >= 0.0 && v.is_finite()).then_some(((v as usize / 100) as i32, v as usize % 100))
}

/// Each thread t of every rank gets exactly the message of thread t of the rank on its
/// left; a message that reached the wrong thread is named.
pub fn ring_matches(
    world: &SimpleCommunicator,
    lens: &[usize],
    ring: RingFn,
) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let left = (rank + size - 1) % size;
    let outgoing: Vec<Vec<f64>> = lens
        .iter()
        .enumerate()
        .map(|(t, &n)| message(rank, t, n))
        .collect();
    let got = ring(world, &outgoing);
    if got.len() != lens.len() {
        return Err(format!(
            "rank {rank} ran {} threads and got {} results back (one per thread expected)",
            lens.len(),
            got.len()
        ));
    }
    for (t, (got, &n)) in got.iter().zip(lens).enumerate() {
        let want = message(left, t, n);
        if *got == want {
            continue;
        }
        return Err(match sender(got) {
            Some((r, u)) if u != t && u < lens.len() => format!(
                "thread {t} of rank {rank} got thread {u}'s message (from rank {r}), not \
                 thread {t}'s from rank {left}: the threads received on one communicator \
                 with one tag, so MPI matched each receive with whichever message came first. \
                 Give each thread its own communicator (or its own tag)"
            ),
            _ => format!(
                "thread {t} of rank {rank} received {:?} but thread {t} of rank {left} sent \
                 {:?} ({n} values)",
                short(got),
                short(&want)
            ),
        });
    }
    Ok(())
}

fn short(v: &[f64]) -> Vec<f64> {
    v.iter().take(4).copied().collect()
}

/// The property of ex 5.4, for `ring` (1 to 4 threads, 1 to 64 values each).
pub fn ring_property(world: &SimpleCommunicator, ring: RingFn) -> Result<(), String> {
    property(world, "each thread gets the message of its partner thread")
        .cases(CASES)
        .check(vec(1usize..=64, 1..=4), |lens| {
            ring_matches(world, lens, ring)
        })
}
