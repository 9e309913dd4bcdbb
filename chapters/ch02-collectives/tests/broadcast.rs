//! Checks of exercises 2.1 and 2.2 (broadcast) against MPI_Bcast at 1, 2, 3, 4, 5, 8 ranks.
//!
//! Run: `make check CH=02` (your code) or `cargo test -p ch02-collectives --features
//! solution --test main broadcast::`. Each test passes, or names the rank, the root and the
//! first wrong element of the smallest case it found.

use crate::common::{cases, lengths, CASES, RANKS};
use ch02::broadcast::{broadcast_binomial, broadcast_linear};
use ch02::ops::{Elem, Op};
use ch02::reference;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::mpi_test;

/// A broadcast under test: (world, root, buffer).
type Bcast<T> = fn(&SimpleCommunicator, i32, &mut [T]);

// ANCHOR: broadcast_property
/// Every rank starts with its own data; afterwards all must hold what MPI_Bcast gives.
fn equals_mpi_bcast<T: Elem>(
    world: &SimpleCommunicator,
    name: &str,
    f: Bcast<T>,
) -> Result<(), String> {
    let rank = world.rank() as usize;
    property(world, &format!("{name}::<{}> equals MPI_Bcast", T::NAME))
        .cases(CASES)
        .check(cases(world.size(), &[Op::Sum], lengths()), |case| {
            let mut got: Vec<T> = case.values(rank);
            let mut want = got.clone();
            f(world, case.root, &mut got);
            reference::broadcast(world, case.root, &mut want);
            exact(
                &format!("buffer after a broadcast from root {}", case.root),
                &got,
                &want,
            )
        })
}
// ANCHOR_END: broadcast_property

mpi_test! {
    fn ex2_1_broadcast_linear(world at RANKS) for T in [i32, i64, f32, f64] {
        equals_mpi_bcast::<T>(world, "broadcast_linear", broadcast_linear)
    }

    fn ex2_2_broadcast_binomial(world at RANKS) for T in [i32, i64, f32, f64] {
        equals_mpi_bcast::<T>(world, "broadcast_binomial", broadcast_binomial)
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): the root
/// never sends. The watchdog names each rank's blocked call within the deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex2_1_a_root_that_never_sends_is_named() {
    toolkit::testing::assert_fault_named(
        "ex2_1_broadcast_linear",
        3,
        "MPI_Send@0:skip",
        &["rank 1: DEADLOCK?", "blocked in MPI_Recv(source=0", "hint:"],
    );
}
