//! Checks of exercise 13.2 (ring attention, forward), under mpirun at 1, 2, 3, 4, 5 and 8
//! ranks in one launch: each rank's rows of the output and their log-sum-exp against one
//! process's attention over the whole sequence, causal and not. A wrong causal result is
//! compared with what the classic slips give (every block attended, the diagonal block
//! unmasked or skipped). Run: `make check CH=13` or `cargo test -p ch13-context-parallel
//! --features solution --test main ring::`.

use crate::common::check_ring;
use ch13::ring::ring_forward;
use toolkit::mpi_test;

mpi_test! {
    fn ex13_2_ring_attention_equals_one_process(world at &[1, 2, 3, 4, 5, 8]) {
        check_ring(world, ring_forward)
    }
}
