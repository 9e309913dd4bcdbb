//! Checks of ex 4.6 (the global residual): the solver's residual, with yours, equals the
//! serial residual within the bound of a sum in another order, and is the same number on
//! every rank, at 1 to 8 ranks.
//!
//! Why a bound and not equality: the serial solver adds the n = rows*cols squares in row
//! order; the parallel one adds each block's squares, then the blocks' sums in the
//! allreduce's order. Each order is within γ(n-1)·Σ|x| of the exact sum (Higham §4.2;
//! γ(k) = k·u/(1 - k·u), u = ε/2; all terms are >= 0, so Σ|x| is the sum itself), so the
//! two differ by at most 2·γ(n-1)·Σ|x| (`toolkit::compare::close_sums`).
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use crate::common::{cases, matches_serial, ref_exchange, reference_parts, CASES, RANKS};
use ch04::solver::{Parts, Variant};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::lockstep::property;
use toolkit::mpi_test;

mpi_test! {
    fn ex4_6_global_residual(world at RANKS) {
        let parts = Parts {
            residual: ch04::residual::global_residual,
            sendrecv: ref_exchange,
            ..reference_parts()
        };
        let name = "global_residual equals the serial residual and is the same on every rank";
        property(world, name).cases(CASES).check(cases(), |case| {
            matches_serial(world, case, Variant::Sendrecv, &parts)?;
            let Ok(run) =
                ch04::solver::solve(world, &case.problem, Variant::Sendrecv, 1, 1, 0.0, &parts)
            else {
                return Ok(()); // a grid the ranks cannot share: nothing to add
            };
            let (mut lo, mut hi) = (0.0f64, 0.0f64);
            world.all_reduce_into(&run.residual, &mut lo, SystemOperation::min());
            world.all_reduce_into(&run.residual, &mut hi, SystemOperation::max());
            if lo.to_bits() != hi.to_bits() {
                return Err(format!(
                    "ranks disagree on the residual: from {lo:e} to {hi:e}; a convergence test \
                     would stop on some ranks and not others"
                ));
            }
            Ok(())
        })
    }
}
