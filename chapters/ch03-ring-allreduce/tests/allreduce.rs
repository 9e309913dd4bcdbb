//! Checks of exercises 3.3 (segmented ring) and 3.4 (recursive doubling): each equals
//! MPI_Allreduce, and every rank holds the same bits, at 1, 2, 3, 4, 5, 8 ranks, for
//! i32, i64, f32, f64 and sum, max, min, AbsMax. The segmented ring runs with tiny
//! segments (1 to 7 elements), so that a chunk is many segments even in small cases.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test main allreduce::`.

use crate::common::{allreduce_property, lengths, RANKS};
use ch03::doubling::allreduce_recursive_doubling;
use ch03::segmented::allreduce_ring_segmented;
use mpi::traits::*;
use toolkit::mpi_test;

mpi_test! {
    fn ex3_3_allreduce_ring_segmented(world at RANKS) for T in [i32, i64, f32, f64] {
        // The segment length varies with the case's length: 1 to 7 elements.
        let segmented = |w: &_, xs: &[T], op| allreduce_ring_segmented(w, xs, op, 1 + xs.len() % 7);
        let name = "allreduce_ring_segmented";
        allreduce_property::<T>(world, name, segmented, lengths(world.size()))
    }

    fn ex3_4_allreduce_recursive_doubling(world at RANKS) for T in [i32, i64, f32, f64] {
        let name = "allreduce_recursive_doubling";
        allreduce_property::<T>(world, name, allreduce_recursive_doubling, lengths(world.size()))
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): at 3 ranks,
/// rank 1 (the odd rank that folded rank 0 in) never gives the result back. The watchdog names each
/// rank's blocked call within the deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex3_4_a_result_never_given_back_is_named() {
    toolkit::testing::assert_fault_named(
        "ex3_4_allreduce_recursive_doubling",
        3,
        "MPI_Send@1:skip",
        &["rank 0: DEADLOCK?", "blocked in MPI_Recv(source=1", "hint:"],
    );
}
