//! The lab's third path (`ch05::ipc_path`): ranks 0 and 1 of one node exchange tensors
//! device to device over CUDA IPC, in both directions through the same two buffers, and
//! every value arrives; the ranks past 1 only take part in the setup. Without a GPU every
//! rank gets the same one-line reason, and nobody waits for anybody.
//!
//! Run: `cargo test -p ch05-hybrid --test main ipc_path::` (the GPU kit runs it on a GPU).

use ch05::ipc_path::IpcPair;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

#[test]
fn without_a_gpu_every_rank_says_the_same_reason() {
    if tch::Cuda::is_available() {
        return; // the next test runs the real thing
    }
    toolkit::testing::at_ranks(
        "without_a_gpu_every_rank_says_the_same_reason",
        &[1, 3],
        |world| {
            let why = match IpcPair::open(world, 1 << 10, Device::Cpu) {
                Ok(_) => return Err("no GPU, yet CUDA IPC opened".into()),
                Err(why) => why,
            };
            let expected = torch_link::why_no_cuda(false).expect("no GPU: a reason");
            match why == format!("no CUDA IPC: {expected}") {
                true => Ok(()),
                false => Err(format!("rank {}: unexpected reason: {why}", world.rank())),
            }
        },
    );
}

#[test]
fn tensors_go_both_ways_device_to_device() {
    if torch_link::skip_without_gpu(
        "tensors_go_both_ways_device_to_device",
        tch::Cuda::is_available(),
    ) {
        return;
    }
    toolkit::testing::at_ranks("tensors_go_both_ways_device_to_device", &[2, 3], |world| {
        let gpus = tch::Cuda::device_count() as usize;
        let device = Device::Cuda(world.rank() as usize % gpus);
        let n = 1 << 16;
        let Some(mut pair) = IpcPair::open(world, 4 * n, device)? else {
            return Ok(()); // rank 2: not part of the exchange
        };
        let rank = world.rank();
        let values = |from: i32, round: i64| {
            Tensor::arange(n as i64, (Kind::Float, device)) * (round + 1) as f64 + from as f64
        };
        for round in 0..3 {
            for sending in [rank == 0, rank == 1] {
                if sending {
                    pair.send(&values(rank, round))?;
                } else {
                    let got = pair.recv(&[n as i64])?;
                    if !got.equal(&values(1 - rank, round)) {
                        return Err(format!("rank {rank}, round {round}: wrong values arrived"));
                    }
                }
            }
        }
        pair.close()
    });
}
