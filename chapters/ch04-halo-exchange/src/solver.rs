//! Given: the parallel heat-equation solver, built from the chapter's parts.
//!
//! Each step: fill the ghosts (pack, exchange, unpack), update every owned cell, and every
//! `residual_every` steps the global residual. The parts are function pointers in
//! [`Parts`]: the labs use yours ([`Parts::yours`]); each exercise's test swaps in only
//! its own exercise and reference versions of the rest, so each turns green on its own.
//!
//! The step is timed on every rank: *compute* is the time in the stencil kernels
//! ([`crate::stencil::kernel_seconds`]), *communication* everything else (packing,
//! messages, waiting, unpacking, the residual's allreduce).

use crate::field::Field;
use crate::halo::{Halo, PackFn, UnpackFn};
use crate::problem::{initial_block, Problem};
use crate::stencil::{kernel_seconds, update_all};
use crate::topology::{Decomposition, Neighbours};
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use std::time::Instant;

/// How the ghosts are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Blocking sends and receives, ordered by parity (ex 4.3), then the update.
    Blocking,
    /// One `MPI_Sendrecv` per shift (ex 4.4), then the update.
    Sendrecv,
    /// Immediate sends and receives around the interior update (ex 4.5).
    Overlapped,
}

/// The three variants, in the order the labs show them.
pub const VARIANTS: [Variant; 3] = [Variant::Blocking, Variant::Sendrecv, Variant::Overlapped];

/// A blocking halo exchange: ex 4.3 or 4.4.
pub type ExchangeFn = fn(&CartesianCommunicator, &Neighbours, &mut Halo);
/// An overlapped step: ex 4.5.
pub type StepFn = fn(&CartesianCommunicator, &Neighbours, &mut Halo, &mut Field, &mut Field);
/// The global residual: ex 4.6.
pub type ResidualFn = fn(&CartesianCommunicator, &Field, &Field) -> f64;

/// The parts the solver is built from.
#[derive(Clone, Copy)]
pub struct Parts {
    /// Ex 4.1.
    pub neighbours: fn(&CartesianCommunicator) -> Neighbours,
    /// Ex 4.2, packing.
    pub pack: PackFn,
    /// Ex 4.2, unpacking.
    pub unpack: UnpackFn,
    /// Ex 4.3.
    pub blocking: ExchangeFn,
    /// Ex 4.4.
    pub sendrecv: ExchangeFn,
    /// Ex 4.5.
    pub overlapped: StepFn,
    /// Ex 4.6.
    pub residual: ResidualFn,
}

impl Parts {
    /// Every part from your exercise files (the solutions with `--features solution`).
    pub fn yours() -> Parts {
        Parts {
            neighbours: crate::neighbours::neighbours,
            pack: crate::pack::pack_column,
            unpack: crate::pack::unpack_column,
            blocking: crate::exchange::exchange_blocking,
            sendrecv: crate::exchange::exchange_sendrecv,
            overlapped: crate::overlap::step_overlapped,
            residual: crate::residual::global_residual,
        }
    }
}

/// The result of a run, on every rank.
pub struct Run {
    /// The process grid and the problem.
    pub decomp: Decomposition,
    /// The Cartesian communicator the run used.
    pub cart: CartesianCommunicator,
    /// This rank's neighbours.
    pub nb: Neighbours,
    /// This rank's block after the last step (ghosts as the last exchange left them).
    pub field: Field,
    /// The global residual of the last step (0.0 after zero steps).
    pub residual: f64,
    /// Steps run.
    pub steps: usize,
    /// This rank's seconds in the stencil kernels, all steps.
    pub compute: f64,
    /// This rank's other seconds in the steps: communication and its bookkeeping.
    pub comm: f64,
}

// ANCHOR: solve
/// Runs up to `steps` time steps of `problem` on every rank of `world`, filling the
/// ghosts with `variant`. Every `residual_every` steps (and at the last) it computes the
/// global residual and stops early once its square root is below `stop_below` (0.0:
/// never). Every rank gets the same residual, so all stop at the same step. Refuses (on
/// every rank, before any communication) a grid the ranks cannot share.
pub fn solve(
    world: &SimpleCommunicator,
    problem: &Problem,
    variant: Variant,
    steps: usize,
    residual_every: usize,
    stop_below: f64,
    parts: &Parts,
) -> Result<Run, String> {
    use mpi::traits::Communicator;
    let decomp = Decomposition::new(problem, world.size())?;
    let cart = decomp.cartesian(world);
    let nb = (parts.neighbours)(&cart);
    let (rows, cols) = (decomp.rows_of(nb.coords[0]), decomp.cols_of(nb.coords[1]));
    let mut src = initial_block(problem, rows.start, cols.start, rows.len(), cols.len());
    let mut dst = src.clone(); // the fixed boundary's ghosts live in both
    let mut halo = Halo::with_packing(rows.len(), cols.len(), parts.pack, parts.unpack);
    let (mut residual, mut done) = (0.0, 0);
    let (start, kernels0) = (Instant::now(), kernel_seconds());
    for step in 1..=steps {
        if variant == Variant::Overlapped {
            (parts.overlapped)(&cart, &nb, &mut halo, &mut src, &mut dst);
        } else {
            halo.pack_from(&src);
            let exchange = if variant == Variant::Blocking {
                parts.blocking
            } else {
                parts.sendrecv
            };
            exchange(&cart, &nb, &mut halo);
            halo.unpack_into(&mut src, &nb);
            update_all(&src, &mut dst);
        }
        if step % residual_every.max(1) == 0 || step == steps {
            residual = (parts.residual)(&cart, &src, &dst);
        }
        std::mem::swap(&mut src, &mut dst);
        done = step;
        // the convergence test: the same global number on every rank, the same decision
        if step % residual_every.max(1) == 0 && residual.sqrt() < stop_below {
            break;
        }
    }
    let compute = kernel_seconds() - kernels0;
    let comm = start.elapsed().as_secs_f64() - compute;
    Ok(Run {
        decomp,
        cart,
        nb,
        field: src,
        residual,
        steps: done,
        compute,
        comm,
    })
}
// ANCHOR_END: solve
