//! Checks of exercises 13.5 (ring attention, backward) and 13.7 (the same in the zig-zag
//! layout), under mpirun at 1, 2, 3, 4, 5 and 8 ranks in one launch each: each rank's dQ,
//! dK and dV against LibTorch's autograd through one process's attention over the whole
//! sequence (causal and not; the zig-zag layout causal). Run: `make check CH=13` or
//! `cargo test -p ch13-context-parallel --features solution --test main backward::`.

use crate::common::backward::check_backward;
use crate::common::zigzag::check_zigzag_backward;
use ch13::backward::{ring_backward, zigzag_backward};
use toolkit::mpi_test;

mpi_test! {
    fn ex13_5_ring_backward_equals_autograd(world at &[1, 2, 3, 4, 5, 8]) {
        check_backward(world, ring_backward)
    }
}

mpi_test! {
    fn ex13_7_zigzag_backward_equals_autograd(world at &[1, 2, 3, 4, 5, 8]) {
        check_zigzag_backward(world, zigzag_backward)
    }
}
