//! CUDA IPC between two ranks of one node: rank 0 sends tensors of three sizes, several
//! times each through the same buffer, device to device, and rank 1 checks every value.
//! Without a GPU (or with a CPU build of LibTorch) it checks the one-line reason instead.
//!
//! Run: `cargo test -p trainer-kit --test main cuda_ipc::` (the GPU kit runs it on a GPU).

use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use trainer_kit::cuda_ipc::{IpcReceiver, IpcSender, Runtime};

#[test]
fn a_cpu_build_says_why_it_has_no_ipc() {
    if tch::Cuda::is_available() {
        return; // the next test runs the real thing
    }
    let why = Runtime::load()
        .err()
        .expect("no GPU, yet CUDA IPC was offered");
    let expected = torch_link::why_no_cuda(false).expect("no GPU: a reason");
    assert_eq!(why, format!("no CUDA IPC: {expected}"));
}

#[test]
fn tensors_cross_between_ranks_device_to_device() {
    if torch_link::skip_without_gpu(
        "tensors_cross_between_ranks_device_to_device",
        tch::Cuda::is_available(),
    ) {
        return;
    }
    toolkit::testing::at_ranks(
        "tensors_cross_between_ranks_device_to_device",
        &[2],
        |world| {
            let gpus = tch::Cuda::device_count() as usize;
            let device = Device::Cuda(world.rank() as usize % gpus);
            let sizes = [1_i64, 1000, 1 << 20];
            let bytes = (1 << 20) * 4;
            let tensor = |n: i64, round: i64| {
                Tensor::arange(n, (Kind::Float, device)) * (round + 1) as f64 + 0.5
            };
            if world.rank() == 1 {
                let mut rx = IpcReceiver::new(world, 0, 7, bytes, device)?;
                for n in sizes {
                    for round in 0..3 {
                        let got = rx.recv(&[n], Kind::Float)?;
                        let want = tensor(n, round);
                        if got.device() != device || !got.equal(&want) {
                            return Err(format!("{n} floats, round {round}: wrong values arrived"));
                        }
                    }
                }
                rx.close()
            } else {
                let mut tx = IpcSender::open(world, 1, 7, device)?;
                for n in sizes {
                    for round in 0..3 {
                        tx.send(&tensor(n, round))?;
                    }
                }
                let too_big = Tensor::zeros([(1 << 20) + 1], (Kind::Float, device));
                match tx.send(&too_big) {
                    Err(e) if e.contains("into a 4194304-byte buffer") => {}
                    other => return Err(format!("an oversized send was not refused: {other:?}")),
                }
                tx.close()
            }
        },
    );
}
