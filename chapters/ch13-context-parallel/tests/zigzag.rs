//! Checks of exercise 13.3 (ring attention in the zig-zag layout, causal), under mpirun at
//! 1, 2, 3, 4, 5 and 8 ranks in one launch: each rank's rows (its chunks r and 2p - 1 - r)
//! and their log-sum-exp against one process's causal attention over the whole sequence. A
//! wrong result is compared with what the classic slips give (the diagonal pairs unmasked,
//! the later chunks attended, the mask chosen by rank as in ex 13.2). Run: `make check
//! CH=13` or `cargo test -p ch13-context-parallel --features solution --test main zigzag::`.

use crate::common::zigzag::check_zigzag;
use ch13::zigzag::zigzag_forward;
use toolkit::mpi_test;

mpi_test! {
    fn ex13_3_zigzag_equals_one_process(world at &[1, 2, 3, 4, 5, 8]) {
        check_zigzag(world, zigzag_forward)
    }
}
