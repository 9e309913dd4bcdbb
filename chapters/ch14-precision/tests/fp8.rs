//! Checks of exercise 14.5 (optional: ZeRO-3's parameter allgather in FP8 E4M3 with one
//! scale per tensor), under mpirun at 1 and 3 ranks: five tensors (weights, weights with
//! one large value on the last rank, values beyond 448, values below E4M3's smallest, zeros)
//! gathered from every rank's shard; the scale and every value against one process that
//! casts the whole tensor with LibTorch, bit for bit. Run: `make check CH=14` or `cargo
//! test -p ch14-precision --features solution --test main fp8::`.

use crate::common::fp8::check_gather;
use ch14::fp8_gather::gather_fp8;
use toolkit::mpi_test;

mpi_test! {
    fn ex14_5_the_fp8_gather_equals_one_process(world at &[1, 3]) {
        check_gather(world, gather_fp8)
    }
}
