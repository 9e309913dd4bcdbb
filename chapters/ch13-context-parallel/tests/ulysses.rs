//! Checks of exercises 13.4 (Ulysses attention: two all-to-alls around attention by heads)
//! and 13.6 (its backward), under mpirun at 1, 2, 4 and 8 ranks in one launch (8 heads:
//! each count divides them): each rank's rows for every head against one process's
//! attention over the whole sequence, then its dQ, dK, dV against LibTorch's autograd
//! there, causal and not. Run: `make check CH=13` or `cargo test -p ch13-context-parallel
//! --features solution --test main ulysses::`.

use crate::common::ulysses::{check_ulysses, check_ulysses_backward};
use ch13::ulysses::{ulysses_backward, ulysses_forward};
use toolkit::mpi_test;

mpi_test! {
    fn ex13_4_ulysses_equals_one_process(world at &[1, 2, 4, 8]) {
        check_ulysses(world, ulysses_forward)
    }
}

mpi_test! {
    fn ex13_6_ulysses_backward_equals_autograd(world at &[1, 2, 4, 8]) {
        check_ulysses_backward(world, ulysses_backward)
    }
}
