//! Checks of exercise 12.2 (the hierarchical allreduce that keeps every rank busy) under
//! mpirun at 1 to 8 ranks, against MPI_Allreduce, on proptest-generated cases (length,
//! layout: the real nodes or 1, 2 or 3 emulated ones). It needs nodes of equal size: a
//! case whose nodes differ (5 ranks on 2 nodes) is skipped, so 2 nodes are checked at 2,
//! 4, 6 and 8 ranks, 3 nodes at 3 and 6. Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main busy::`.

use crate::common::{cases, check_allreduce};
use ch12::busy::allreduce_busy;
use toolkit::lockstep::property;

toolkit::mpi_test! {
    /// Every rank ends with MPI_Allreduce's sum: i64 exactly, f32 within the bound.
    fn ex12_2_busy_equals_mpi_allreduce(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        property(world, "the busy allreduce against MPI_Allreduce")
            .cases(24)
            .check(cases(), |case| {
                check_allreduce(world, (allreduce_busy, allreduce_busy), case, true)
            })
    }
}
