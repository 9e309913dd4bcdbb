//! Checks of the sums over the ranks, under mpirun at 1, 2, 3, 4, 5 and 8 ranks, on the
//! lab's gradient-like values (0, 1, 7, 333 and 1000 per rank): ex 14.2's sum equals one
//! process's f32 sum in rank order rounded once to bf16, bit for bit; and the given bf16
//! ring (which calls ex 14.1) equals one process rounding every partial sum in the ring's
//! order. Run: `make check CH=14` or `cargo test -p ch14-precision --features solution
//! --test main sums::`.

use crate::common::sums::{check_sum, one_rounding, one_rounding_cause, ring_order};
use ch14::ring::ring_sum_bf16;
use ch14::wire::sum_bf16_one_rounding;
use toolkit::mpi_test;

mpi_test! {
    fn ex14_2_one_rounding_of_the_f32_sum(world at &[1, 2, 3, 4, 5, 8]) {
        check_sum(world, sum_bf16_one_rounding, &one_rounding, &one_rounding_cause)
    }

    fn the_bf16_ring_rounds_every_partial_sum(world at &[1, 2, 3, 5, 8]) {
        check_sum(world, ring_sum_bf16, &ring_order, &|_, _| "not the ring's order".into())
    }
}
