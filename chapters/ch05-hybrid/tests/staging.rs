//! Checks of ex 5.6 (the staged allreduce), on CPU tensors (the GPU path is the same code
//! with `Device::Cuda`): equal to MPI_Allreduce of the same data, i64 exactly and f32
//! within the summation bound, lengths 0-2000, chunks of 1 element to larger than the
//! tensor (at most 200 chunks a case), at 1 to 4 ranks.
//!
//! The copy stream of `ch05::stream` lands a copy only at `synchronize`, so a buffer
//! handed to MPI too early fails here on every run.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use crate::gpu_common::{staging_property, staging_property_on};
use ch05::gpu_node::{local_place, visible_gpus};
use ch05::staging::staged_allreduce;
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

mpi_test! {
    /// The same property with the tensors on this rank's GPU (ranks share it round-robin):
    /// real device-to-host copies on a real stream. Skipped, saying why, without a GPU.
    fn ex5_6_staged_allreduce_on_the_gpu(world at &[1, 2, 4]) {
        let name = "ex5_6_staged_allreduce_on_the_gpu";
        if torch_link::skip_without_gpu(name, tch::Cuda::is_available()) {
            return Ok(());
        }
        let gpu = local_place(world).0 % visible_gpus();
        staging_property_on(
            world,
            (
                staged_allreduce::<i64, SimpleCommunicator>,
                staged_allreduce::<f32, SimpleCommunicator>,
            ),
            20,
            tch::Device::Cuda(gpu),
        )
    }
}

#[test]
fn given_staging_refuses_a_chunk_of_zero() {
    let refused = ch05::stream::Staging::<f32>::new(0, 10, tch::Device::Cpu);
    assert!(refused.is_err_and(|why| why.contains("at least 1")));
}

#[test]
fn given_stream_copies_beside_the_caller_and_lands_only_at_synchronize() {
    use ch05::staging_trace::{self, COPIER};
    use ch05::stream::{CopyStream, HostBuf};
    use tch::{Device, Kind, Tensor};
    let t = Tensor::arange(1000, (Kind::Float, Device::Cpu)) + 1.0;
    let mut buf = HostBuf::<f32>::new(1000, Device::Cpu);
    let mut stream = CopyStream::<f32>::new(Device::Cpu);
    staging_trace::start();
    // SAFETY: `buf` is not read, nor `t` written, before the synchronisation.
    unsafe { stream.start_to_host(&t, 0, &mut buf, 1000) };
    assert_eq!(stream.in_flight(), 1);
    std::thread::sleep(std::time::Duration::from_millis(20)); // time enough to copy
    assert!(
        buf.iter().all(|&x| x == 0.0),
        "a copy showed before synchronize"
    );
    stream.synchronize();
    assert_eq!((buf[0], buf[999], stream.in_flight()), (1.0, 1000.0, 0));
    let spans = staging_trace::stop();
    let copies: Vec<_> = spans.iter().filter(|s| s.track == COPIER).collect();
    assert_eq!(copies.len(), 1, "{spans:?}");
    assert_eq!(copies[0].name, "copy 0");
}
