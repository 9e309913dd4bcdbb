//! Checks of exercise 12.1 (the hierarchical allreduce through the leaders) under
//! mpirun at 1 to 8 ranks, against MPI_Allreduce, on proptest-generated cases (length,
//! layout: the real nodes or 1, 2 or 3 emulated ones, nodes of unequal size included),
//! every rank generating the same case (`toolkit::lockstep`). Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main hier::`.

use crate::common::{cases, check_allreduce};
use ch12::hier::allreduce_leaders;
use toolkit::lockstep::property;

toolkit::mpi_test! {
    /// Every rank ends with MPI_Allreduce's sum: i64 exactly, f32 within the bound.
    fn ex12_1_leaders_equal_mpi_allreduce(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        property(world, "the leaders' allreduce against MPI_Allreduce")
            .cases(24)
            .check(cases(), |case| {
                check_allreduce(world, (allreduce_leaders, allreduce_leaders), case, false)
            })
    }
}
