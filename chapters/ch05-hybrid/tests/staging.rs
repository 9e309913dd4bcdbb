//! Checks of ex 5.6 (the staged allreduce), on CPU tensors (the GPU path is the same code
//! with `Device::Cuda`): equal to MPI_Allreduce of the same data, i64 exactly and f32
//! within the summation bound, lengths 0-2000, chunks of 1 element to larger than the
//! tensor, at 1 to 4 ranks.
//!
//! The copy stream of `ch05::stream` lands a copy only at `synchronize`, so a buffer
//! handed to MPI too early fails here on every run.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

mod gpu_common;
use ch05::staging::staged_allreduce;
use gpu_common::staging_property;
use mpi::topology::SimpleCommunicator;
use toolkit::mpi_test;

mpi_test! {
    fn ex5_6_staged_allreduce(world at &[1, 2, 3, 4]) {
        staging_property(
            world,
            staged_allreduce::<i64, SimpleCommunicator>,
            staged_allreduce::<f32, SimpleCommunicator>,
            40,
        )
    }
}

#[test]
fn given_staging_refuses_a_chunk_of_zero() {
    let refused = ch05::stream::Staging::<f32>::new(0, 10, tch::Device::Cpu);
    assert!(refused.is_err_and(|why| why.contains("at least 1")));
}
