//! Toolchain smoke test: MPI and LibTorch in one binary.
//!
//! Run: `cargo run -p workbook-tests --bin torch_smoke` (re-launches itself with NP=4
//! ranks). Every rank makes a tensor of 1000 floats, rank r holding r+1 in every element,
//! copies its data into a buffer, allreduces the buffer with MPI, writes it back, and
//! checks the sum: 1 + 2 + ... + size in every element. Expect one line from rank 0.

use mpi::collective::SystemOperation;
use mpi::traits::*;
use tch::{Kind, Tensor};

const LEN: usize = 1000;

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    tch::set_num_threads(1);

    let t = Tensor::full(
        [LEN as i64],
        f64::from(rank + 1),
        (Kind::Float, tch::Device::Cpu),
    );
    let mut send = vec![0f32; LEN];
    t.copy_data(&mut send, LEN);
    let mut sum = vec![0f32; LEN];
    world.all_reduce_into(&send[..], &mut sum[..], SystemOperation::sum());
    let reduced = Tensor::from_slice(&sum);

    let want = (size * (size + 1) / 2) as f64;
    let (min, max) = (
        reduced.min().double_value(&[]),
        reduced.max().double_value(&[]),
    );
    assert!(
        min == want && max == want,
        "rank {rank}: expected {want} everywhere, got {min}..{max}"
    );
    if rank == 0 {
        println!(
            "torch smoke: libtorch (cuda available: {}) + MPI on {size} ranks: allreduce of a \
             {LEN}-float tensor gave {want} everywhere, as expected",
            tch::Cuda::is_available()
        );
    }
}
