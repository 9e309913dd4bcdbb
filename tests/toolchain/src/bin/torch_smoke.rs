//! Toolchain smoke test: MPI and LibTorch in one binary.
//!
//! Run: `cargo run -p workbook-toolchain --bin torch_smoke [-- --device cuda]` (re-launches
//! itself with NP=4 ranks). Every rank makes a tensor of 1000 floats, rank r holding r+1 in
//! every element, on the CPU or (with `--device cuda`) on the GPU of its local rank; copies
//! it into a host buffer, allreduces the buffer with MPI, copies the sum back to the
//! tensor's device, and checks it there: 1 + 2 + ... + size in every element.
//! Expect one line from rank 0 naming the device. `--device cuda` where no GPU can be used
//! ends with one line saying why (a CPU-only build, no driver, no visible GPU).

use mpi::collective::SystemOperation;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

const LEN: usize = 1000;

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    tch::set_num_threads(1);
    let args: Vec<String> = std::env::args().collect();
    let cuda = args
        .windows(2)
        .any(|w| w[0] == "--device" && w[1] == "cuda");
    let device = if cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            if rank == 0 {
                eprintln!("torch smoke: --device cuda: {why}");
            }
            drop(universe); // every rank knows the same: finish MPI, then exit with 2
            std::process::exit(2);
        }
        let local = world.split_shared(rank).rank();
        Device::Cuda(local as usize % tch::Cuda::device_count() as usize)
    } else {
        Device::Cpu
    };

    let t = Tensor::full([LEN as i64], f64::from(rank + 1), (Kind::Float, device));
    let mut send = vec![0f32; LEN];
    t.to_device(Device::Cpu).copy_data(&mut send, LEN);
    let mut sum = vec![0f32; LEN];
    world.all_reduce_into(&send[..], &mut sum[..], SystemOperation::sum());
    let reduced = Tensor::from_slice(&sum).to_device(device);

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
             {LEN}-float tensor on {device:?} gave {want} everywhere, as expected",
            tch::Cuda::is_available()
        );
    }
}
