//! Given: the hybrid heat-equation solver, MPI between ranks and threads inside each rank.
//!
//! Each rank owns a block (chapter 4's decomposition) and a pool of T worker threads.
//! Two ways to run a step:
//! - [`Variant::Threaded`]: the main thread exchanges the halos, then the pool updates
//!   the whole block (ex 5.2);
//! - [`Variant::Overlapped`]: the pool updates the interior while the main thread
//!   exchanges, then the main thread updates the boundary (ex 5.3).
//!
//! Only the main thread calls MPI (`MPI_THREAD_FUNNELED`). The parts are function
//! pointers ([`Parts`]), so each exercise's test swaps in only that exercise.

use crate::given_halo::{exchange, exchange_seconds, Block};
use ch04::field::Field;
use ch04::halo::Halo;
use ch04::problem::Problem;
use ch04::stencil::local_residual;
use ch04::topology::Neighbours;
use mpi::collective::SystemOperation;
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use rayon::ThreadPool;
use std::time::Instant;

/// How a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Exchange (main thread), then the threaded update of the whole block (ex 5.2).
    Threaded,
    /// Threaded interior update while the main thread exchanges, then the boundary (ex 5.3).
    Overlapped,
}

/// Ex 5.2: the threaded update of the whole block.
pub type UpdateFn = fn(&ThreadPool, &Field, &mut Field);
/// Ex 5.3: one overlapped step.
pub type OverlapFn =
    fn(&ThreadPool, &CartesianCommunicator, &Neighbours, &mut Halo, &mut Field, &mut Field);

/// The parts the solver is built from.
#[derive(Clone, Copy)]
pub struct Parts {
    /// Ex 5.2.
    pub update: UpdateFn,
    /// Ex 5.3.
    pub overlapped: OverlapFn,
}

impl Parts {
    /// Your exercise files (the solutions with `--features solution`).
    pub fn yours() -> Parts {
        Parts {
            update: crate::hybrid_step::update_threaded,
            overlapped: crate::overlap_threads::step_overlapped,
        }
    }
}

/// A pool of `threads` worker threads named `worker-0`, `worker-1`, ...
pub fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("worker-{i}"))
        .build()
        .expect("cannot start the worker threads")
}

/// The result of a run, on every rank.
pub struct HybridRun {
    /// This rank's block after the last step (`src` holds the result).
    pub block: Block,
    /// The global residual of the last step (0.0 after zero steps).
    pub residual: f64,
    /// Wall seconds of all steps on this rank.
    pub seconds: f64,
    /// Seconds of those in the halo exchange (the main thread's MPI calls).
    pub exchange: f64,
}

// ANCHOR: solve_hybrid
/// Runs `steps` time steps of `problem` on the ranks of `world`, each rank with a pool
/// of `threads` threads, each step as `variant`. The residual of the last step is summed
/// over the ranks.
pub fn solve_hybrid(
    world: &SimpleCommunicator,
    problem: &Problem,
    threads: usize,
    variant: Variant,
    steps: usize,
    parts: &Parts,
) -> Result<HybridRun, String> {
    let mut b = Block::new(world, problem)?;
    let pool = pool(threads);
    let mut residual = 0.0;
    let (start, exchange0) = (Instant::now(), exchange_seconds());
    for step in 1..=steps {
        match variant {
            Variant::Threaded => {
                b.halo.pack_from(&b.src);
                exchange(&b.cart, &b.nb, &mut b.halo);
                b.halo.unpack_into(&mut b.src, &b.nb);
                (parts.update)(&pool, &b.src, &mut b.dst);
            }
            Variant::Overlapped => {
                let (cart, nb) = (&b.cart, &b.nb);
                (parts.overlapped)(&pool, cart, nb, &mut b.halo, &mut b.src, &mut b.dst);
            }
        }
        if step == steps {
            let mine = local_residual(&b.src, &b.dst);
            b.cart
                .all_reduce_into(&mine, &mut residual, SystemOperation::sum());
        }
        std::mem::swap(&mut b.src, &mut b.dst);
    }
    Ok(HybridRun {
        block: b,
        residual,
        seconds: start.elapsed().as_secs_f64(),
        exchange: exchange_seconds() - exchange0,
    })
}
// ANCHOR_END: solve_hybrid
